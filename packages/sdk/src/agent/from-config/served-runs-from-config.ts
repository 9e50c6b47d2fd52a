/**
 * `durability.servedRuns` (or `durability.store` alone) → {@link ServedRuns} over run claims in the store:
 * the claim `claims/served-<digest>` and the result record `served/<digest>` (the digest of the
 * principal-scoped run id, so any principal's id is a valid store key). See serve/served-runs.ts.
 *
 * Retention (`durability.servedRuns.retention`, default 24h): a finished run's claim and result record carry
 * `keepUntil`; until then a retry is "already done", after it the run id runs again, and a sweep (every
 * replica, store/retention.ts) deletes both. A result record that cannot be written is one warning line
 * (`served-run.record-failed`): the caller still gets its answer, and the claim is still marked done.
 */
import { createHash } from "node:crypto";
import type { AgentdConfig } from "../../config/types.generated.ts";
import { scrubSecrets, type Logger } from "../../log.ts";
import type { ServedRunAnswer, ServedRuns, ServedRunStart } from "../../serve/served-runs.ts";
import { StoreSweeper, sweepInterval, type SweepRule } from "../../store/retention.ts";
import { RunClaims, claimsSweepRule, type ClaimDocument } from "../../store/run-claims.ts";
import type { StoreClient } from "../../store/store-client.ts";
import { upstreamError } from "../connections/connect-server.ts";
import { checkDurability, durablePartOn, durableStoreEntry, storeConnection } from "./durable-store.ts";

/** Served runs with a `close()` for the store connection. */
export interface ConfiguredServedRuns extends ServedRuns {
  close(): Promise<void>;
}

/** How long a second caller waits for another replica's run by default. */
export const DEFAULT_SERVED_RUN_WAIT_MS = 30_000;

/** How long a finished served run answers "already done" by default. */
export const DEFAULT_SERVED_RUN_RETENTION_MS = 24 * 3_600_000;

/** A result record as stored: the answer and the end of its retention. */
type ServedRunRecord = ServedRunAnswer & { keepUntil?: number };

/**
 * The sweep rule of result records: past `keepUntil`; a record written without it (before retention) goes
 * once its claim is gone (swept, or released).
 */
const recordsSweepRule: SweepRule = {
  prefix: "served/",
  expiresAt: async (value, key, store) => {
    const keepUntil = (value as ServedRunRecord | undefined)?.keepUntil;
    if (typeof keepUntil === "number") return keepUntil;
    return (await store.get(RunClaims.key(`served-${key.slice("served/".length)}`))) ? undefined : 0;
  },
};

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
  const s = config.durability?.servedRuns;
  const served = createServedRuns({
    store,
    holder: c?.holder || undefined,
    leaseMs: c?.lease,
    retentionMs: s?.retention,
    waitMs: s?.wait,
    logger,
  });
  return {
    begin: (key, signal, options) => served.begin(key, signal, options),
    close: async () => {
      await served.close();
      await connection.close();
    },
  };
}

/** What served runs need of a store ({@link StoreClient} over any MCP store). */
export type ServedRunsStore = Pick<StoreClient, "get" | "put" | "compareAndSet" | "delete" | "list">;

/** Options of {@link createServedRuns}. */
export interface ServedRunsOptions {
  store: () => Promise<ServedRunsStore>;
  /** This replica's name in claims (default: a random id). */
  holder?: string;
  /** The claims' lease (default 30 s). */
  leaseMs?: number;
  /** How long a finished run answers "already done" (default 24 h). */
  retentionMs?: number;
  /** How long a second caller waits for another replica's run (default 30 s). */
  waitMs?: number;
  logger: Logger;
  now?: () => number;
}

/** {@link ServedRuns} over a store (see the module header); `close` stops the sweep, not the store. */
export function createServedRuns(
  options: ServedRunsOptions,
): ServedRuns & { sweep(): Promise<{ checked: number; deleted: number }>; close(): Promise<void> } {
  const { store, logger } = options;
  const now = options.now ?? Date.now;
  const retentionMs = options.retentionMs ?? DEFAULT_SERVED_RUN_RETENTION_MS;
  const claims = new RunClaims({
    store,
    holder: options.holder || undefined,
    leaseMs: options.leaseMs,
    retentionMs,
    logger,
    now,
  });
  const c = options.holder ? { holder: options.holder } : undefined;
  const waitMs = options.waitMs ?? DEFAULT_SERVED_RUN_WAIT_MS;
  // Started once the store was reached (an agent never asked for a served run never connects to it).
  const sweeper = new StoreSweeper({
    store,
    rules: [claimsSweepRule(retentionMs, "claims/served-"), recordsSweepRule],
    intervalMs: sweepInterval(retentionMs),
    logger,
    name: "served-runs",
    now,
  });
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
        if (bound.aborted) return { status: "running", holder: c?.holder };
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
      sweeper.start();
      if (outcome.status !== "claimed") release();
      if (outcome.status === "done") {
        const doc = await (await store()).get(recordKey);
        const { keepUntil: _, ...answer } = (doc?.value ?? {}) as ServedRunRecord;
        return { status: "done", answer: doc ? answer : undefined };
      }
      if (outcome.status === "aborted") {
        const doc = await (await store()).get(RunClaims.key(claimId)).catch(() => undefined);
        const holder = (doc?.value as ClaimDocument | undefined)?.holder;
        return { status: "running", holder: holder || undefined };
      }
      const held = outcome.claim;
      const fields = { key: recordKey, holder: claims.holder };
      const failure = (e: unknown) => scrubSecrets(e instanceof Error ? e.message : String(e));
      return {
        status: "run",
        takenOver: held.takenOver,
        lost: held.lost,
        async finish(answer) {
          try {
            // The answer first: a claim marked done always has its record (unless the store lost it or refused it).
            if (answer)
              try {
                await (await store()).put(recordKey, { ...answer, keepUntil: now() + retentionMs } satisfies ServedRunRecord);
              } catch (e) {
                logger.warn("served-run.record-failed", {
                  ...fields,
                  error: failure(e),
                  message:
                    "the run's answer was not kept in the store (its caller has it): a retry with the same run ID is told it was done, without the answer",
                });
              }
            // Marked done even without its record: a retry must not run the work a second time.
            await held.end(answer !== undefined).catch((e: unknown) =>
              logger.warn("served-run.claim-end-failed", {
                ...fields,
                error: failure(e),
                message: "the claim stays until its lease expires; a retry after it runs the run again",
              }),
            );
          } finally {
            release();
          }
        },
      };
    },
    /** One sweep now (the timer sweeps every quarter of the retention). */
    sweep: () => sweeper.sweep(),
    close: () => sweeper.stop(),
  };
}
