/**
 * `durability.claims` (or `durability.store` alone) → {@link RunClaims} over the configured store,
 * connected on the first claim (so an agent that never fires a trigger never starts the store) and
 * released with the triggers.
 */
import type { AgentdConfig } from "../config/types.ts";
import type { Logger } from "../log.ts";
import { RunClaims } from "../store/run-claims.ts";
import { upstreamError } from "./connect-server.ts";
import { checkDurability, durablePartOn, durableStoreEntry, storeConnection } from "./durable-store.ts";

/** Run claims with a `close()` for the store connection. */
export interface ConfiguredClaims extends RunClaims {
  close(): Promise<void>;
}

/** The run claims the config asks for, or undefined when it asks for none (nothing claimed). */
export function claimsFromConfig(config: AgentdConfig, logger: Logger): ConfiguredClaims | undefined {
  checkDurability(config);
  const entry = durableStoreEntry(config, "claims");
  if (!durablePartOn(config, "claims") || !entry) return undefined;
  const c = config.durability?.claims;
  const connection = storeConnection("claims-store", entry, logger);
  const claims = new RunClaims({
    ...(c?.holder ? { holder: c.holder } : {}),
    ...(c?.lease !== undefined ? { leaseMs: c.lease } : {}),
    logger,
    store: async () => {
      try {
        return await connection.store();
      } catch (e) {
        throw upstreamError("claims-store", e);
      }
    },
  });
  return Object.assign(claims, { close: () => connection.close() });
}
