/**
 * `durability.servedRuns` (or `durability.store` alone) → {@link ServedRuns} over run claims in the store:
 * the claim `claims/served-<digest>` and the result record `served/<digest>` (the digest of the
 * principal-scoped run id, so any principal's id is a valid store key). See serve/served-runs.ts.
 */
import { createHash } from "node:crypto";
import type { AgentdConfig } from "../config/types.ts";
import type { Logger } from "../log.ts";
import type { ServedRunAnswer, ServedRuns, ServedRunStart } from "../serve/served-runs.ts";
import { RunClaims, type ClaimDocument } from "../store/run-claims.ts";
import type { StoreClient } from "../store/store-client.ts";
import { upstreamError } from "./connect-server.ts";
import { checkDurability, durablePartOn, durableStoreEntry, storeConnection } from "./durable-store.ts";

/** Served runs with a `close()` for the store connection. */
export interface ConfiguredServedRuns extends ServedRuns {
  close(): Promise<void>;
}

/** How long a second caller waits for another replica's run by default. */
export const DEFAULT_SERVED_RUN_WAIT_MS = 30_000;

/** The served-run claims the config asks for, or undefined (each replica answers for its own runs only). */
export function servedRunsFromConfig(config: AgentdConfig, logger: Logger): ConfiguredServedRuns | undefined {
  checkDurability(config);
  if (!durablePartOn(config, "servedRuns")) return undefined;
  const entry = durableStoreEntry(config, "servedRuns");
  if (!entry) return undefined;
  const connection = storeConnection("served-runs-store", entry, logger);
  const store = async (): Promise<StoreClient> => {
    try {
      return await connection.store();
    } catch (e) {
      throw upstreamError("served-runs-store", e);
    }
  };
  const c = config.durability?.claims;
  const claims = new RunClaims({
    store,
    ...(c?.holder ? { holder: c.holder } : {}),
    ...(c?.lease !== undefined ? { leaseMs: c.lease } : {}),
    logger,
  });
  const waitMs = config.durability?.servedRuns?.wait ?? DEFAULT_SERVED_RUN_WAIT_MS;
  // This replica's own runs in flight: a claim held by this holder would be claimed again, so wait here.
  const local = new Map<string, Promise<void>>();
  return {
    async begin(key: string, signal: AbortSignal, options: { waitMs?: number } = {}): Promise<ServedRunStart> {
      const digest = createHash("sha256").update(key).digest("base64url");
      const claimId = `served-${digest}`;
      const recordKey = `served/${digest}`;
      const wait = options.waitMs ?? waitMs;
      const bound = Number.isFinite(wait) ? AbortSignal.any([signal, AbortSignal.timeout(wait)]) : signal;
      for (let mine = local.get(claimId); mine; mine = local.get(claimId)) {
        await Promise.race([mine, new Promise((resolve) => bound.addEventListener("abort", resolve, { once: true }))]);
        if (bound.aborted) return { status: "running", ...(c?.holder ? { holder: c.holder } : {}) };
      }
      let ended!: () => void;
      local.set(claimId, new Promise<void>((resolve) => (ended = resolve)));
      const release = () => {
        local.delete(claimId);
        ended();
      };
      let outcome: Awaited<ReturnType<RunClaims["acquire"]>>;
      try {
        outcome = await claims.acquire(claimId, bound);
      } catch (e) {
        release();
        throw e;
      }
      if (outcome.status !== "claimed") release();
      if (outcome.status === "done") {
        const doc = await (await store()).get(recordKey);
        return { status: "done", ...(doc ? { answer: doc.value as ServedRunAnswer } : {}) };
      }
      if (outcome.status === "aborted") {
        const doc = await (await store()).get(RunClaims.key(claimId)).catch(() => undefined);
        const holder = (doc?.value as ClaimDocument | undefined)?.holder;
        return { status: "running", ...(holder ? { holder } : {}) };
      }
      const held = outcome.claim;
      return {
        status: "run",
        takenOver: held.takenOver,
        async finish(answer) {
          try {
            // The answer first: a claim marked done always has its record (unless the store lost it).
            if (answer) await (await store()).put(recordKey, answer);
            await held.end(answer !== undefined);
          } finally {
            release();
          }
        },
      };
    },
    close: () => connection.close(),
  };
}
