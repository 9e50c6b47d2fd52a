/** A store MCP server over an in-memory transport pair, with a connected client. */
import { McpClient } from "../../mcp/client/client.ts";
import { MemoryTransport } from "../../transport/memory.ts";
import { createStoreServer } from "../store-server.ts";
import { StoreClient } from "../store-client.ts";
import type { StoreBackend } from "../types.ts";

/** Connect a {@link StoreClient} to a fresh store server on `backend`; `close` closes both (not the backend). */
export async function connectStore(backend: StoreBackend): Promise<{ store: StoreClient; close(): Promise<void> }> {
  const server = createStoreServer(backend);
  const [a, b] = MemoryTransport.createPair();
  await server.connect(b);
  const mcp = new McpClient({ name: "store-test", version: "0" });
  await mcp.connect(a);
  return {
    store: new StoreClient(mcp),
    async close() {
      await mcp.close();
      await server.close();
    },
  };
}
