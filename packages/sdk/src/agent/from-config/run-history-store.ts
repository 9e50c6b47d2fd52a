/**
 * The fleet's run history in an MCP store (`durability.store`): each replica writes every finished run
 * there — and a run that waits for a decision when it starts waiting, its record replaced by the run's next
 * one (finished, or waiting again) whichever replica writes it — and lists every replica's
 * (serve/shared-run-history.ts says how a listing merges them).
 *
 * Keys (principal ids and run ids may hold any character; keys hold their digests):
 * - `runs/index/<principal digest>`: `{ owner, runs }`, the principal's kept runs newest first, each a
 *   listing summary with the key and size of its record. One document a principal, written by
 *   compare-and-set, so replicas finishing runs of one principal at once never lose one another's;
 * - `runs/record/<principal digest>/<ended ms>-<run digest>`: `{ owner, replica, record }`, the record
 *   `agent://runs/{runId}` serves (tool arguments and results already masked; cut to 256 KiB).
 *
 * Bounded per principal by count, bytes and age (`serve.runHistory.shared`): a write drops the oldest
 * past any bound and deletes their records; once an hour a replica also prunes principals that have not
 * run since (and records no index names, left by a replica that died between its two writes).
 *
 * The store is a help, never a dependency: a read that fails or takes over 5 s leaves the listing to this
 * replica's own runs; the first failure logs one `run-history.store-unavailable` warning, the first success
 * after it one `run-history.store-available` line.
 */
import { sha256 } from "../../_internal/hash.ts";
import { hostname } from "node:os";
import { withoutUndefined } from "../../_internal/without-undefined.ts";
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { RunHistoryLimits, RunRecord } from "../../serve/run-registry.ts";
import { summaryOf, type ListedRun, type RunSummary } from "../../serve/run-list.ts";
import type { SharedRunHistory } from "../../serve/shared-run-history.ts";
import type { StoreClient } from "../../store/store-client.ts";
import { storeConnection, type StoreConnection } from "./durable-store.ts";

/** Bounds of the fleet's history in the store, per principal. */
export interface SharedRunHistoryBounds {
  /** Runs kept per principal (default 100, at most 1000). */
  maxRuns: number;
  /** Bytes of records kept per principal (default 8 MiB). */
  maxBytes: number;
  /** How long a finished run is kept (default 7 days). */
  maxAgeMs: number;
}

/** The defaults of {@link SharedRunHistoryBounds}. */
export const DEFAULT_SHARED_RUN_HISTORY: Readonly<SharedRunHistoryBounds> = Object.freeze({
  maxRuns: 100,
  maxBytes: 8 * 1024 * 1024,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
});

/** A stored record's JSON is cut to this many characters (its answer first, then its turns). */
export const MAX_STORED_RECORD_CHARS = 256 * 1024;
const READ_TIMEOUT_MS = 5000;
const WRITE_TIMEOUT_MS = 10_000;
/** A listing read from the store serves every page asked within this long (a console redraws every 2 s). */
const CACHE_MS = 1000;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** A record no index names is left alone this long (its index may be being written). */
const ORPHAN_AFTER_MS = 10 * 60 * 1000;
const CAS_ATTEMPTS = 16;

const INDEX = "runs/index/";
const RECORD = "runs/record/";

interface IndexEntry {
  key: string;
  bytes: number;
  endedAt: string;
  summary: RunSummary;
}

interface IndexDocument {
  owner: string;
  runs: IndexEntry[];
}

interface RecordDocument {
  owner: string;
  replica: string;
  record: RunRecord;
}

const digest = (s: string) => sha256(s, "base64url");
const indexKey = (owner: string) => `${INDEX}${digest(owner)}`;

/**
 * `serve.runHistory` as the run registry takes it: the local bounds, and with `durability.store` the fleet's
 * history in that store (named after `durability.claims.holder`, else this host and process).
 */
export function runHistoryFromConfig(config: AgentdConfig, logger: Logger): RunHistoryLimits | undefined {
  const { shared: bounds, ...local } = config.serve?.runHistory ?? {};
  const entry = config.durability?.store;
  if (!entry) return config.serve?.runHistory ? local : undefined;
  const replica = config.durability?.claims?.holder ?? `${hostname()}-${process.pid}`;
  const shared = new StoreRunHistory(storeConnection("run-history-store", entry, logger), replica, logger, {
    ...DEFAULT_SHARED_RUN_HISTORY,
    ...withoutUndefined({ maxRuns: bounds?.maxRuns, maxBytes: bounds?.maxBytes, maxAgeMs: bounds?.maxAge }),
  });
  return { ...local, shared };
}

/** The fleet's history over one store connection; see the module header. */
export class StoreRunHistory implements SharedRunHistory {
  private writes: Promise<void> = Promise.resolve();
  private readonly cache = new Map<string, { at: number; runs: Promise<ListedRun[] | undefined> }>();
  private down = false;
  private lastSweep = 0;

  constructor(
    private readonly connection: Pick<StoreConnection, "store" | "close">,
    readonly replica: string,
    private readonly logger: Logger,
    private readonly bounds: SharedRunHistoryBounds = DEFAULT_SHARED_RUN_HISTORY,
    private readonly now: () => number = Date.now,
  ) {}

  publish(owner: string, record: RunRecord): void {
    const doc: RecordDocument = { owner, replica: this.replica, record: fit({ ...record, replica: this.replica }) };
    this.writes = this.writes
      .then(async () => {
        await within(this.write(doc), WRITE_TIMEOUT_MS, "write the run's record");
        this.logger.debug("run-history.written", { runId: record.runId, replica: this.replica });
        if (this.now() - this.lastSweep > SWEEP_EVERY_MS) {
          this.lastSweep = this.now();
          await this.sweep();
        }
        this.available();
      })
      .catch((e: unknown) => this.unavailable(e));
  }

  list(viewer: string | undefined): Promise<ListedRun[] | undefined> {
    const key = viewer === undefined ? "" : `=${viewer}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < CACHE_MS) return hit.runs;
    const runs = this.guard(async (store) => {
      const docs = viewer === undefined ? await this.allIndexes(store) : [await readIndex(store, indexKey(viewer))];
      const cutoff = this.now() - this.bounds.maxAgeMs;
      const out: ListedRun[] = [];
      for (const d of docs)
        if (d) for (const e of d.value.runs) if (Date.parse(e.endedAt) >= cutoff) out.push({ owner: d.value.owner, summary: e.summary });
      return out;
    });
    this.cache.set(key, { at: this.now(), runs });
    return runs;
  }

  async read(runId: string, owner: string | undefined): Promise<{ owner: string; record: RunRecord } | undefined> {
    return this.guard(async (store) => {
      const docs = owner === undefined ? await this.allIndexes(store) : [await readIndex(store, indexKey(owner))];
      const cutoff = this.now() - this.bounds.maxAgeMs;
      let best: IndexEntry | undefined;
      for (const d of docs)
        for (const e of d?.value.runs ?? [])
          if (e.summary.runId === runId && Date.parse(e.endedAt) >= cutoff && (!best || e.summary.startedAt > best.summary.startedAt))
            best = e;
      if (!best) return undefined;
      const doc = (await store.get(best.key))?.value as RecordDocument | undefined;
      return doc ? { owner: doc.owner, record: doc.record } : undefined;
    });
  }

  /** Resolves once the writes published so far are done (or failed). */
  idle(): Promise<void> {
    return this.writes;
  }

  /** Finish the writes under way (bounded), then release the connection. */
  async close(): Promise<void> {
    await Promise.race([this.writes, new Promise((r) => setTimeout(r, READ_TIMEOUT_MS).unref?.())]);
    await this.connection.close();
  }

  /** Write the record, then add it to its principal's index, dropping what falls past the bounds. */
  private async write(doc: RecordDocument): Promise<void> {
    const store = await this.connection.store();
    const r = doc.record;
    const endedAt = r.endedAt ?? new Date(this.now()).toISOString();
    const key = `${RECORD}${digest(doc.owner)}/${Date.parse(endedAt)}-${digest(`${doc.replica}\n${r.runId}\n${r.startedAt}`)}`;
    const bytes = JSON.stringify(doc).length;
    await store.put(key, doc);
    const summary = summaryOf(r);
    // The index holds one summary per run: an error's message is cut like the answer's excerpt.
    if (summary.error && summary.error.message.length > 500)
      summary.error = { ...summary.error, message: `${summary.error.message.slice(0, 499)}…` };
    const entry: IndexEntry = { key, bytes, endedAt, summary };
    // A run's `waiting` record (written when it started waiting, by whichever replica) is replaced by its next one.
    const replaced: string[] = [];
    const dropped = await this.updateIndex(store, indexKey(doc.owner), doc.owner, (runs) =>
      [entry].concat(
        runs.filter((e) => {
          const same = e.key === key || (e.summary.runId === r.runId && e.summary.status === "waiting");
          if (same && e.key !== key) replaced.push(e.key);
          return !same;
        }),
      ),
    );
    this.cache.clear();
    await Promise.all([...dropped, ...replaced].map((k) => store.delete(k).catch(() => false)));
  }

  /** Compare-and-set `change` into an index, keeping what the bounds allow; resolves to the record keys it dropped. */
  private async updateIndex(
    store: StoreClient,
    key: string,
    owner: string,
    change: (runs: IndexEntry[]) => IndexEntry[],
  ): Promise<string[]> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const doc = await readIndex(store, key);
      const changed = change(doc?.value.runs ?? []).sort((a, b) => b.summary.startedAt.localeCompare(a.summary.startedAt));
      const { kept, dropped } = this.bound(changed);
      const same = changed.length === doc?.value.runs.length && changed.every((e, i) => e === doc.value.runs[i]);
      if (doc && dropped.length === 0 && same) return [];
      const result =
        kept.length === 0
          ? { ok: doc ? await store.delete(key, doc.version) : true }
          : await store.compareAndSet(key, doc?.version ?? 0, { owner, runs: kept } satisfies IndexDocument);
      if (result.ok) return dropped.map((e) => e.key);
    }
    throw new Error(`the run index ${key} kept changing under ${CAS_ATTEMPTS} attempts to write it`);
  }

  /** The newest runs within the count, byte and age bounds; the rest. */
  private bound(runs: IndexEntry[]): { kept: IndexEntry[]; dropped: IndexEntry[] } {
    const cutoff = this.now() - this.bounds.maxAgeMs;
    const kept: IndexEntry[] = [];
    let bytes = 0;
    let full = false;
    const dropped: IndexEntry[] = [];
    for (const e of runs) {
      full ||= kept.length >= this.bounds.maxRuns || bytes + e.bytes > this.bounds.maxBytes;
      if (full || Date.parse(e.endedAt) < cutoff) dropped.push(e);
      else {
        kept.push(e);
        bytes += e.bytes;
      }
    }
    return { kept, dropped };
  }

  /** Prune every principal's index by age, and delete records no index names (older than a few minutes). */
  private async sweep(): Promise<void> {
    const store = await this.connection.store();
    const named = new Set<string>();
    for (const { key } of await store.list(INDEX)) {
      const doc = await readIndex(store, key);
      if (!doc) continue;
      const dropped = await this.updateIndex(store, key, doc.value.owner, (runs) => runs);
      await Promise.all(dropped.map((k) => store.delete(k).catch(() => false)));
      for (const e of (await readIndex(store, key))?.value.runs ?? []) named.add(e.key);
    }
    const cutoff = this.now() - ORPHAN_AFTER_MS;
    for (const { key } of await store.list(RECORD)) {
      const ended = Number(/\/(\d+)-[^/]+$/.exec(key)?.[1]);
      if (!named.has(key) && Number.isFinite(ended) && ended < cutoff) await store.delete(key).catch(() => false);
    }
    this.cache.clear();
  }

  private async allIndexes(store: StoreClient) {
    const keys = await store.list(INDEX);
    return Promise.all(keys.map(({ key }) => readIndex(store, key)));
  }

  /** Run a read against the store within the timeout; undefined (and the availability noted) when it fails. */
  private async guard<T>(read: (store: StoreClient) => Promise<T>): Promise<T | undefined> {
    try {
      const value = await within(this.connection.store().then(read), READ_TIMEOUT_MS, "answer");
      this.available();
      return value;
    } catch (e) {
      this.unavailable(e);
      this.cache.clear();
      return undefined;
    }
  }

  private unavailable(e: unknown): void {
    if (this.down) return;
    this.down = true;
    this.logger.warn("run-history.store-unavailable", {
      replica: this.replica,
      error: e instanceof Error ? e.message : String(e),
      effect: "listing this replica's runs only until the store answers",
    });
  }

  private available(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.info("run-history.store-available", { replica: this.replica });
  }
}

/** `work`, or a rejection once `ms` pass without it settling. */
async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the store did not ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readIndex(store: StoreClient, key: string): Promise<{ version: number; value: IndexDocument } | undefined> {
  const doc = await store.get(key);
  const value = doc?.value as IndexDocument | undefined;
  if (!doc || !value || typeof value.owner !== "string" || !Array.isArray(value.runs)) return undefined;
  return { version: doc.version, value };
}

/** The record cut to {@link MAX_STORED_RECORD_CHARS} of JSON: its answer and output first, then its turns. */
function fit(record: RunRecord): RunRecord {
  const size = (r: RunRecord) => JSON.stringify(r).length;
  if (size(record) <= MAX_STORED_RECORD_CHARS) return record;
  const r: RunRecord = structuredClone(record);
  if (r.result) {
    if (r.result.text !== undefined && r.result.text.length > 64 * 1024) r.result.text = `${r.result.text.slice(0, 64 * 1024 - 1)}…`;
    if (r.result.output !== undefined && JSON.stringify(r.result.output).length > 64 * 1024) {
      delete r.result.output;
      r.result.text ??= "(the structured output was too large to keep in the shared history)";
    }
  }
  if (r.error && r.error.message.length > 64 * 1024) r.error.message = `${r.error.message.slice(0, 64 * 1024 - 1)}…`;
  while (r.detail && r.detail.turns.length > 1 && size(r) > MAX_STORED_RECORD_CHARS) {
    const turn = r.detail.turns.pop()!;
    r.detail.dropped ??= { turns: 0, toolCalls: 0 };
    r.detail.dropped.turns++;
    r.detail.dropped.toolCalls += turn.toolCalls.length;
  }
  return r;
}
