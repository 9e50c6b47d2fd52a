/**
 * The agent's observable state: which runs are in flight, what finished, usage so far. The served agent
 * exposes it as `agent://status` and `agent://runs/{runId}`; every change notifies subscribers.
 *
 * Every run belongs to the principal that started it (see `principal.ts`): a run id names a run only
 * within its owner's runs, so two principals may use the same id without meeting. Finished runs are kept
 * for reading and idempotency per principal, up to a count and a byte bound, the oldest finished going
 * first, so one principal's many runs never push out another's; a byte bound for the whole agent takes from
 * whoever holds the most. A run that went is remembered as expired (its id only, in a bounded set per
 * principal), so a late reader is told so, and a retry with its id is not run again.
 */
import { withoutUndefined } from "../_internal/without-undefined.ts";
import { sha256 } from "../_internal/hash.ts";
import { addUsage, emptyUsage, type Usage } from "../model/language-model.ts";
import { foldApproval } from "./approvals/run-approval-history.ts";
import type { RunEvent } from "../loop/events.ts";
import { maskSecretValues } from "../secret-values.ts";
import { LOCAL_PRINCIPAL } from "./principal.ts";
import { applyRunEvent, emptyRunDetail, runDetailBytes } from "./run-detail.ts";
import { pageOfRuns, type RunPage, type RunQuery } from "./run-list.ts";
import type { SharedRunHistory } from "./shared-run-history.ts";

export type { RunRecord, RunVia, RunStartInfo, RunListChange, ToolInFlight, AgentStatus, RunHistoryLimits } from "./run-record.ts";
import type { RunRecord, RunStartInfo, RunListChange, ToolInFlight, AgentStatus, RunHistoryLimits } from "./run-record.ts";

/** The defaults of {@link RunHistoryLimits}. */
export const DEFAULT_RUN_HISTORY: Readonly<Required<Omit<RunHistoryLimits, "shared">>> = Object.freeze({
  maxRuns: 100,
  maxBytes: 16 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
});

/** Expired run ids remembered per principal, to answer "already done" rather than run a gone run again. */
const EXPIRED_PER_PRINCIPAL = 4096;
/** Expired run ids remembered for all principals together; past it, the principal with the most forgets its oldest. */
const EXPIRED_TOTAL = 65_536;
/** A longer run id is remembered as expired by its digest, so the id set stays small whatever the ids. */
const EXPIRED_ID_MAX = 128;

interface Entry {
  owner: string;
  record: RunRecord;
  bytes: number;
  /** Start order: newest first in listings, and the paging cursor. */
  seq: number;
}

/** One principal's part of the history. */
interface Share {
  /** Run ids of finished runs held, oldest finished first. */
  finished: Set<string>;
  bytes: number;
  /** Run ids (or digests of long ones) of finished runs no longer held, oldest first. */
  expired: Set<string>;
}

interface Tally {
  started: number;
  succeeded: number;
  failed: number;
  usage: Usage;
  /** Spend of finished runs that had a price; undefined while none had. */
  costUsd?: number;
}

const keyOf = (owner: string, runId: string) => `${owner}\n${runId}`;
const expiredToken = (runId: string) => (runId.length <= EXPIRED_ID_MAX ? runId : `#${sha256(runId, "base64url")}`);

/** Keeps run records (bounded history) per principal and reports changes. */
export class RunRegistry {
  private readonly runs = new Map<string, Entry>();
  private readonly shares = new Map<string, Share>();
  private totalBytes = 0;
  private totalExpired = 0;
  private readonly startedAt = new Date().toISOString();
  private readonly tallies = new Map<string, Tally>();
  private readonly listeners = new Set<(runId: string | undefined, owner: string) => void>();
  private readonly listListeners = new Set<(change: RunListChange) => void>();
  private readonly eventListeners = new Set<(event: RunEvent, owner: string, record: RunRecord) => void>();
  private seq = 0;
  readonly limits: Readonly<Required<Omit<RunHistoryLimits, "shared">>>;
  /** The fleet's history this registry writes its finished runs to, when shared. */
  readonly shared: SharedRunHistory | undefined;

  constructor(limits: RunHistoryLimits | number = {}) {
    const { shared, ...given } = typeof limits === "number" ? { maxRuns: limits } : limits;
    this.limits = Object.freeze({ ...DEFAULT_RUN_HISTORY, ...withoutUndefined(given) });
    this.shared = shared;
  }

  /** Called with the run id that changed and its owner (and always for status). */
  onChange(listener: (runId: string | undefined, owner: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(runId: string, owner: string): void {
    for (const l of this.listeners) l(runId, owner);
  }

  /**
   * Called when a run starts, finishes, or leaves the bounded history — the changes of the run list
   * (`agent://runs`), not every progress step of a run.
   */
  onRunListChange(listener: (change: RunListChange) => void): () => void {
    this.listListeners.add(listener);
    return () => this.listListeners.delete(listener);
  }

  private listChanged(runId: string, owner: string, record: RunRecord | undefined): void {
    for (const l of this.listListeners) l({ runId, owner, record });
  }

  /** Called with every run event {@link observe}d, its run's owner and record (metrics count from here). */
  onRunEvent(listener: (event: RunEvent, owner: string, record: RunRecord) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /**
   * Fold a run event of `owner`'s running run into its detail (turns, tool calls, subagents; bounded).
   * Does not notify `agent://runs/{runId}` by itself: {@link progress} does, at the steps worth it.
   */
  observe(runId: string, event: RunEvent, owner = LOCAL_PRINCIPAL): void {
    const r = this.runs.get(keyOf(owner, runId))?.record;
    // A waiting run's resumed part starts here again (resumed in this process, its caller still waiting).
    if (r?.status === "waiting" && event.type === "run-start") this.resumed(owner, r);
    if (r?.status !== "running") return;
    applyRunEvent((r.detail ??= emptyRunDetail()), event);
    const approvals = foldApproval(r.approvals, event);
    if (approvals) r.approvals = approvals;
    // A question asked or decided is worth telling `agent://runs/{runId}`'s subscribers (the run waits on it).
    if (event.type === "approval-requested" || event.type === "approval-decided") this.changed(runId, owner);
    // The loop's own totals, so a run that fails keeps the turns and tool calls it made (fail() has none).
    if (event.type === "run-end") Object.assign(r, { turns: event.turns, toolCalls: event.toolCalls });
    for (const l of this.eventListeners) l(event, owner, r);
    // Stopped to wait for a decision: saved, holding nothing, until it is resumed (here or elsewhere).
    if (event.type === "run-end" && event.stopReason === "waiting") this.wait(runId, event, owner);
  }

  /**
   * `owner`'s running run stopped to wait for a person's decision (saved, to be resumed): it shows `waiting`,
   * with its questions in `approvals`, neither running nor finished, until its resumed part starts
   * ({@link start} or its `run-start` event) and ends it.
   */
  wait(
    runId: string,
    progress: { usage: Usage; turns: number; toolCalls: number; conversationId?: string },
    owner = LOCAL_PRINCIPAL,
  ): void {
    const r = this.runs.get(keyOf(owner, runId))?.record;
    if (r?.status !== "running") return;
    Object.assign(r, { status: "waiting", usage: progress.usage, turns: progress.turns, toolCalls: progress.toolCalls });
    if (progress.conversationId && !r.conversationId) r.conversationId = progress.conversationId;
    delete r.tool;
    this.changed(runId, owner);
    this.listChanged(runId, owner, r);
    // The fleet lists it while it waits (whichever replica resumes it replaces the record when it ends).
    this.shared?.publish(owner, structuredClone(r));
  }

  /** A waiting run's record goes on as its resumed part runs (the same run: not started again in the tallies). */
  private resumed(owner: string, r: RunRecord): void {
    r.status = "running";
    this.changed(r.runId, owner);
    this.listChanged(r.runId, owner, r);
  }

  /**
   * A page of runs, newest first: `viewer` undefined is the operator's view (every principal's runs,
   * each with its `principal`); else the viewer's own runs only. See `run-list.ts` for the query.
   */
  list(query: RunQuery = {}, viewer?: string, maxPage?: number): RunPage {
    const entries = [...this.runs.values()].filter((e) => viewer === undefined || e.owner === viewer);
    return pageOfRuns(entries, query, viewer === undefined, maxPage);
  }

  /** Every held run (running or finished) that `viewer` may see: its own, or all for the operator's view (undefined). */
  records(viewer?: string): { owner: string; record: RunRecord }[] {
    const out: { owner: string; record: RunRecord }[] = [];
    for (const e of this.runs.values()) if (viewer === undefined || e.owner === viewer) out.push({ owner: e.owner, record: e.record });
    return out;
  }

  /** Whether `owner` has a run with this id (running or in history). */
  has(runId: string, owner = LOCAL_PRINCIPAL): boolean {
    return this.runs.has(keyOf(owner, runId));
  }

  /** `owner`'s run with this id. */
  get(runId: string, owner = LOCAL_PRINCIPAL): RunRecord | undefined {
    return this.runs.get(keyOf(owner, runId))?.record;
  }

  /** Every held run with this id, whoever owns it (the operator's view), most recent first. */
  find(runId: string): { owner: string; record: RunRecord }[] {
    const out: { owner: string; record: RunRecord }[] = [];
    for (const e of this.runs.values()) if (e.record.runId === runId) out.unshift({ owner: e.owner, record: e.record });
    return out;
  }

  /** Whether `owner`'s run with this id finished and has since left the bounded history. */
  expired(runId: string, owner = LOCAL_PRINCIPAL): boolean {
    return this.shares.get(owner)?.expired.has(expiredToken(runId)) ?? false;
  }

  /** What `owner` holds in the history: finished runs, their bytes, expired ids remembered. */
  held(owner = LOCAL_PRINCIPAL): { runs: number; bytes: number; expired: number } {
    const s = this.shares.get(owner);
    return { runs: s?.finished.size ?? 0, bytes: s?.bytes ?? 0, expired: s?.expired.size ?? 0 };
  }

  /**
   * Record the start of `owner`'s run (`info`: how it was started). A run waiting under this id is being
   * resumed: its record goes on (its first part's turns and questions kept).
   */
  start(runId: string, given: string, owner = LOCAL_PRINCIPAL, info: RunStartInfo = {}): RunRecord {
    const waiting = this.runs.get(keyOf(owner, runId))?.record;
    if (waiting?.status === "waiting") {
      this.resumed(owner, waiting);
      return waiting;
    }
    const instruction = maskSecretValues(given); // a trigger's can hold a `${VAR}` value from the config
    const record: RunRecord = {
      runId,
      status: "running",
      instruction: instruction.length > 500 ? `${instruction.slice(0, 500)}…` : instruction,
      startedAt: new Date().toISOString(),
      turns: 0,
      toolCalls: 0,
      usage: emptyUsage(),
      via: info.via || undefined,
      trigger: info.trigger,
      replica: this.shared?.replica,
      conversationId: info.conversationId || undefined,
    };
    const key = keyOf(owner, runId);
    this.forgetFinished(owner, runId);
    const share = this.shares.get(owner);
    if (share?.expired.delete(expiredToken(runId))) this.totalExpired--;
    this.runs.delete(key);
    this.runs.set(key, { owner, record, bytes: 0, seq: ++this.seq });
    this.tally(owner).started++;
    this.changed(runId, owner);
    this.listChanged(runId, owner, record);
    return record;
  }
  /**
   * `owner`'s run that was resumed, and recorded, by another replica (its record is in the fleet's history):
   * the record held here while it ran or waited leaves, so the run is recorded once.
   */
  recordedElsewhere(runId: string, owner = LOCAL_PRINCIPAL): void {
    const key = keyOf(owner, runId);
    const status = this.runs.get(key)?.record.status;
    if (status !== "running" && status !== "waiting") return;
    this.runs.delete(key);
    this.changed(runId, owner);
    this.listChanged(runId, owner, undefined);
  }

  /** Record progress of a running run (a model turn, a tool call). */
  progress(
    runId: string,
    update: { turns?: number; toolCalls?: number; usage?: Usage; tool?: ToolInFlight | null },
    owner = LOCAL_PRINCIPAL,
  ): void {
    const r = this.runs.get(keyOf(owner, runId))?.record;
    if (r?.status !== "running") return;
    if (update.turns !== undefined) r.turns = update.turns;
    if (update.toolCalls !== undefined) r.toolCalls = update.toolCalls;
    if (update.usage) r.usage = update.usage;
    // null: the call ended.
    if (update.tool === null) delete r.tool;
    else if (update.tool) r.tool = update.tool;
    this.changed(runId, owner);
  }

  succeed(
    runId: string,
    result: {
      text?: string;
      output?: unknown;
      stopReason: string;
      usage: Usage;
      turns: number;
      toolCalls: number;
      conversationId?: string;
    },
    owner = LOCAL_PRINCIPAL,
  ): void {
    const r = this.runs.get(keyOf(owner, runId))?.record;
    if (!r) return;
    // A run that stopped to wait has not finished: it waits, saved, for its decisions.
    if (result.stopReason === "waiting") return this.wait(runId, result, owner);
    // A run that named its conversation only as it ran (a trigger's, a fresh one) is linked to it as it ends.
    if (result.conversationId && !r.conversationId) r.conversationId = result.conversationId;
    Object.assign(r, {
      status: "succeeded",
      endedAt: new Date().toISOString(),
      usage: result.usage,
      turns: result.turns,
      toolCalls: result.toolCalls,
    });
    delete r.tool;
    r.result = {
      stopReason: result.stopReason,
      text: result.text,
      output: result.output,
    };
    const t = this.tally(owner);
    t.succeeded++;
    t.usage = addUsage(t.usage, result.usage);
    if (r.detail?.costUsd !== undefined) t.costUsd = (t.costUsd ?? 0) + r.detail.costUsd;
    this.finish(owner, runId);
  }

  fail(runId: string, error: { code: string; message: string }, usage?: Usage, owner = LOCAL_PRINCIPAL): void {
    const r = this.runs.get(keyOf(owner, runId))?.record;
    if (!r) return;
    Object.assign(r, { status: "failed", endedAt: new Date().toISOString(), error });
    delete r.tool;
    if (usage) r.usage = usage;
    const t = this.tally(owner);
    t.failed++;
    t.usage = addUsage(t.usage, r.usage);
    if (r.detail?.costUsd !== undefined) t.costUsd = (t.costUsd ?? 0) + r.detail.costUsd;
    this.finish(owner, runId);
  }

  /** The status of `owner`'s runs, or of the whole agent when no owner is given (the operator's view). */
  status(owner?: string): AgentStatus {
    const mine = [...this.runs.values()].filter((e) => owner === undefined || e.owner === owner);
    const running = mine.filter((e) => e.record.status === "running");
    const waiting = mine.filter((e) => e.record.status === "waiting");
    const tallies = owner === undefined ? [...this.tallies.values()] : [this.tallies.get(owner)].filter((t): t is Tally => t !== undefined);
    const sum = (k: "started" | "succeeded" | "failed") => tallies.reduce((n, t) => n + t[k], 0);
    const done = tallies.reduce((u, t) => addUsage(u, t.usage), emptyUsage());
    const priced = tallies.filter((t) => t.costUsd !== undefined);
    return {
      state: running.length > 0 ? "running" : "idle",
      running: running.map((e) => e.record.runId),
      waiting: waiting.map((e) => e.record.runId),
      runsStarted: sum("started"),
      runsSucceeded: sum("succeeded"),
      runsFailed: sum("failed"),
      usage: [...running, ...waiting].reduce((u, e) => addUsage(u, e.record.usage), done),
      costUsd: priced.length ? priced.reduce((n, t) => n + t.costUsd!, 0) : undefined,
      startedAt: this.startedAt,
    };
  }

  /** The principals with runs, and their running run ids (the operator's view). */
  principals(): Record<string, { running: string[]; runsStarted: number }> {
    const out: Record<string, { running: string[]; runsStarted: number }> = {};
    for (const [owner, t] of this.tallies) out[owner] = { running: [], runsStarted: t.started };
    for (const e of this.runs.values()) if (e.record.status === "running") out[e.owner]?.running.push(e.record.runId);
    return out;
  }

  private tally(owner: string): Tally {
    let t = this.tallies.get(owner);
    if (!t) this.tallies.set(owner, (t = { started: 0, succeeded: 0, failed: 0, usage: emptyUsage() }));
    return t;
  }

  private share(owner: string): Share {
    let s = this.shares.get(owner);
    if (!s) this.shares.set(owner, (s = { finished: new Set(), bytes: 0, expired: new Set() }));
    return s;
  }

  /** A run finished: it joins its owner's history, which then sheds its oldest finished runs past the bounds. */
  private finish(owner: string, runId: string): void {
    const entry = this.runs.get(keyOf(owner, runId))!;
    entry.bytes = sizeOf(entry.record);
    this.forgetFinished(owner, runId);
    const share = this.share(owner);
    share.finished.add(runId);
    share.bytes += entry.bytes;
    this.totalBytes += entry.bytes;
    this.changed(runId, owner);
    this.listChanged(runId, owner, entry.record);
    this.shared?.publish(owner, entry.record);
    this.trim(owner, share);
  }

  /** Take a finished run out of its owner's history count (the record itself stays unless the caller drops it). */
  private forgetFinished(owner: string, runId: string): void {
    const share = this.shares.get(owner);
    if (!share?.finished.delete(runId)) return;
    const bytes = this.runs.get(keyOf(owner, runId))?.bytes ?? 0;
    share.bytes -= bytes;
    this.totalBytes -= bytes;
  }

  /** The owner's own bounds first; then the whole agent's, taken from whoever holds the most. */
  private trim(owner: string, share: Share): void {
    const { maxRuns, maxBytes, maxTotalBytes } = this.limits;
    while (share.finished.size > 0 && (share.finished.size > maxRuns || share.bytes > maxBytes)) this.expireOldest(owner, share);
    while (this.totalBytes > maxTotalBytes) {
      const [largest, of] = this.largest((s) => s.bytes);
      if (!of || of.finished.size === 0) break;
      this.expireOldest(largest, of);
    }
  }

  private expireOldest(owner: string, share: Share): void {
    const runId = share.finished.values().next().value as string;
    this.forgetFinished(owner, runId);
    this.runs.delete(keyOf(owner, runId));
    this.listChanged(runId, owner, undefined);
    share.expired.add(expiredToken(runId));
    this.totalExpired++;
    if (share.expired.size > EXPIRED_PER_PRINCIPAL) this.forgetOldestExpired(share);
    while (this.totalExpired > EXPIRED_TOTAL) {
      const [, most] = this.largest((s) => s.expired.size);
      if (!most || most.expired.size === 0) break;
      this.forgetOldestExpired(most);
    }
  }

  private forgetOldestExpired(share: Share): void {
    share.expired.delete(share.expired.values().next().value as string);
    this.totalExpired--;
  }

  /** The principal whose share is largest by `measure`. */
  private largest(measure: (s: Share) => number): [string, Share | undefined] {
    let best: [string, Share | undefined] = ["", undefined];
    for (const [owner, s] of this.shares) if (!best[1] || measure(s) > measure(best[1])) best = [owner, s];
    return best;
  }
}

/** What a finished record costs, roughly: its strings, in UTF-16 units, plus a fixed overhead. */
function sizeOf(r: RunRecord): number {
  let n = 256 + r.runId.length + r.instruction.length;
  if (r.result?.text) n += r.result.text.length;
  if (r.result?.output !== undefined) n += JSON.stringify(r.result.output)?.length ?? 0;
  if (r.error) n += r.error.message.length + r.error.code.length;
  return n + runDetailBytes(r.detail) + (r.trigger?.length ?? 0);
}
