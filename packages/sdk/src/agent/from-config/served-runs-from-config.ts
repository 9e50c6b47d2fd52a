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
import { sha256 } from "../../_internal/hash.ts";
import type { AgentdConfig } from "../../config/types.generated.ts";
import { scrubSecrets, type Logger } from "../../log.ts";
import type { ServedRunAnswer, ServedRuns, ServedRunStart } from "../../serve/served-runs.ts";
import { StoreSweeper, sweepInterval, type SweepRule } from "../../store/retention.ts";
import { RunClaims, claimsSweepRule, type ClaimDocument, type ClaimOutcome, type HeldClaim } from "../../store/run-claims.ts";
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
  const claims = new RunClaims({ store, holder: options.holder || undefined, leaseMs: options.leaseMs, retentionMs, logger, now });
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
  const own = new OwnRuns();
  // Named in "running elsewhere" when this replica's own run of the id outlasted the wait.
  const ownName = options.holder || undefined;
  return {
    async begin(key: string, signal: AbortSignal, options: { waitMs?: number } = {}): Promise<ServedRunStart> {
      const digest = sha256(key, "base64url");
      const claimId = `served-${digest}`;
      const record = { store, key: `served/${digest}`, holder: claims.holder, retentionMs, now, logger };
      const wait = options.waitMs ?? waitMs;
      const bound = Number.isFinite(wait) ? AbortSignal.any([signal, AbortSignal.timeout(wait)]) : signal;
      if (!(await own.waitTurn(claimId, bound))) return { status: "running", holder: ownName };
      const release = own.take(claimId);
      let outcome: ClaimOutcome;
      try {
        outcome = await claims.acquire(claimId, bound);
      } catch (e) {
        release();
        throw e;
      }
      sweeper.start();
      if (outcome.status !== "claimed") release();
      if (outcome.status === "done") return { status: "done", answer: await keptAnswer(record) };
      if (outcome.status === "aborted") return { status: "running", holder: await claimHolder(store, claimId) };
      const held = outcome.claim;
      return {
        status: "run",
        takenOver: held.takenOver,
        lost: held.lost,
        finish: (answer) => finishServedRun(answer, held, record).finally(release),
      };
    },
    /** One sweep now (the timer sweeps every quarter of the retention). */
    sweep: () => sweeper.sweep(),
    close: () => sweeper.stop(),
  };
}

/**
 * This replica's own runs in flight, by claim: a claim held by this holder would be claimed again, so a
 * second caller of the same run id waits here for the first.
 */
class OwnRuns {
  private readonly running = new Map<string, Promise<void>>();

  /** Wait until no run of ours holds `claimId`; false when `bound` aborted first. */
  async waitTurn(claimId: string, bound: AbortSignal): Promise<boolean> {
    for (let mine = this.running.get(claimId); mine; mine = this.running.get(claimId)) {
      await Promise.race([mine, new Promise((resolve) => bound.addEventListener("abort", resolve, { once: true }))]);
      if (bound.aborted) return false;
    }
    return true;
  }

  /** Hold `claimId` as ours in flight; the function returned lets the next caller go. */
  take(claimId: string): () => void {
    let ended!: () => void;
    this.running.set(claimId, new Promise<void>((resolve) => (ended = resolve)));
    return () => {
      this.running.delete(claimId);
      ended();
    };
  }
}

/** Where a served run's answer is kept, and for how long. */
interface RecordPlace {
  store: () => Promise<ServedRunsStore>;
  key: string;
  holder: string;
  retentionMs: number;
  now: () => number;
  logger: Logger;
}

/** The answer kept for a finished run (undefined when its record is gone or was never written). */
async function keptAnswer(record: RecordPlace): Promise<ServedRunAnswer | undefined> {
  const doc = await (await record.store()).get(record.key);
  const { keepUntil: _, ...answer } = (doc?.value ?? {}) as ServedRunRecord;
  return doc ? answer : undefined;
}

/** Who holds a claim now (for "running elsewhere"), if the store says. */
async function claimHolder(store: () => Promise<ServedRunsStore>, claimId: string): Promise<string | undefined> {
  const doc = await (await store()).get(RunClaims.key(claimId)).catch(() => undefined);
  return (doc?.value as ClaimDocument | undefined)?.holder || undefined;
}

/** The run ended: its answer kept (when it has one), then its claim marked done (or released). */
async function finishServedRun(answer: ServedRunAnswer | undefined, held: HeldClaim, record: RecordPlace): Promise<void> {
  const { logger } = record;
  const fields = { key: record.key, holder: record.holder };
  const failure = (e: unknown) => scrubSecrets(e instanceof Error ? e.message : String(e));
  // The answer first: a claim marked done always has its record (unless the store lost it or refused it).
  if (answer)
    try {
      await (await record.store()).put(record.key, { ...answer, keepUntil: record.now() + record.retentionMs } satisfies ServedRunRecord);
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
}
