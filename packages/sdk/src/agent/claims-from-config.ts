/**
 * `durability.claims` → {@link RunClaims} over an MCP client to the configured store, connected on the
 * first claim (so an agent that never fires a trigger never starts the store) and closed with the triggers.
 */
import type { AgentdConfig } from "../config/schema.ts";
import type { Logger } from "../log.ts";
import { McpClient } from "../mcp/client/client.ts";
import { RunClaims } from "../store/run-claims.ts";
import { StoreClient } from "../store/store-client.ts";
import { CLIENT_INFO, transportFor, upstreamError } from "./connect-server.ts";

/** Run claims with a `close()` for the store connection. */
export interface ConfiguredClaims extends RunClaims {
  close(): Promise<void>;
}

/** The run claims `config.durability.claims` asks for, or undefined when it is absent (nothing claimed). */
export function claimsFromConfig(config: AgentdConfig, logger: Logger): ConfiguredClaims | undefined {
  const c = config.durability?.claims;
  if (!c) return undefined;
  let client: McpClient | undefined;
  const claims = new RunClaims({
    ...(c.holder ? { holder: c.holder } : {}),
    ...(c.lease !== undefined ? { leaseMs: c.lease } : {}),
    logger,
    store: async () => {
      client = new McpClient(CLIENT_INFO, { logger });
      try {
        await client.connect(transportFor("claims-store", c.store, logger));
      } catch (e) {
        throw upstreamError("claims-store", e);
      }
      return new StoreClient(client);
    },
  });
  return Object.assign(claims, { close: async () => void (await client?.close()) });
}
