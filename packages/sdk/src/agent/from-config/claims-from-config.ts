/**
 * `durability.claims` (or `durability.store` alone) → {@link RunClaims} over the configured store,
 * connected on the first claim (so an agent that never fires a trigger never starts the store) and
 * released with the triggers. Succeeded runs' claims are kept for `durability.claims.retention` (default
 * 7 days), then swept (store/retention.ts; the sweep starts with the first claim).
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import { RunClaims } from "../../store/run-claims.ts";
import { upstreamError } from "../connections/connect-server.ts";
import { checkDurability, durablePartOn, durableStoreEntry, storeConnection } from "./durable-store.ts";

/** Run claims with a `close()` for the store connection. */
export interface ConfiguredClaims extends RunClaims {
  close(): Promise<void>;
}

/** How long a succeeded triggered run's claim is kept by default. */
export const DEFAULT_CLAIM_RETENTION_MS = 7 * 24 * 3_600_000;

/** The run claims the config asks for, or undefined when it asks for none (nothing claimed). */
export function claimsFromConfig(config: AgentdConfig, logger: Logger): ConfiguredClaims | undefined {
  checkDurability(config);
  const entry = durableStoreEntry(config, "claims");
  if (!durablePartOn(config, "claims") || !entry) return undefined;
  const c = config.durability?.claims;
  const connection = storeConnection("claims-store", entry, logger);
  const claims = new RunClaims({
    holder: c?.holder || undefined,
    leaseMs: c?.lease,
    retentionMs: c?.retention ?? DEFAULT_CLAIM_RETENTION_MS,
    logger,
    store: async () => {
      try {
        return await connection.store();
      } catch (e) {
        throw upstreamError("claims-store", e);
      }
    },
  });
  // Served runs' claims (`claims/served-…`) are swept by the served runs, with their own retention.
  const sweeper = claims.sweeper(logger, "claims", "claims/", "claims/served-");
  const acquire = claims.acquire.bind(claims);
  claims.acquire = (runId, signal) => {
    sweeper?.start();
    return acquire(runId, signal);
  };
  return Object.assign(claims, {
    close: async () => {
      await sweeper?.stop();
      await connection.close();
    },
  });
}
