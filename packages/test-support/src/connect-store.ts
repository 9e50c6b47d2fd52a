/** A store MCP server over an in-memory transport pair, with a connected client. */
import { McpClient } from "@agentd/sdk/mcp";
import { createStoreServer, type StoreBackend, StoreClient } from "@agentd/sdk/store";
import { MemoryTransport } from "@agentd/sdk/transport";

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
