/**
 * The handle table: every subagent a supervisor started, as plain data. No processes, no pipes, no model
 * context live here — only supervisor-owned facts: the retained spawn payload (the recoverable
 * unit), usage so far, attempts, status and the result. So the table can be snapshotted as JSON, and MCP
 * `tasks/*` is a thin translation over it ({@link toTask}): the states are the tasks states (minus
 * `input_required`), with created/updated timestamps, a ttl, and a result retrievable by id.
 */
import { addUsage, emptyUsage, type Usage } from "../model/language-model.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { RunScope } from "../loop/scope.ts";
import { AgentdError } from "../wire/errors.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";

/** The state of a handle. `completed`, `failed` and `cancelled` are terminal. */
export type HandleStatus = "working" | "completed" | "failed" | "cancelled";

/** Why a handle failed or was cancelled. */
export type FailureReason = "limit-exceeded" | "crashed" | "failed" | "cancelled";

/** The failure of a handle. */
export interface SubagentFailure {
  reason: FailureReason;
  /** The local error code (`E_BUDGET_TOKENS`, `E_SUPERVISOR`, `E_ABORTED`, `E_RUN_FAILED`…). */
  code: string;
  message: string;
  stopReason?: string;
}

/** The answer of a completed handle. */
export interface SubagentAnswer {
  text?: string;
  output?: unknown;
  stopReason: string;
}

/** The spawn payload as retained for the child's lifetime: everything needed to start it again. */
export interface SpawnPayload {
  instruction: string;
  seed?: unknown;
  /** Every scope on the way down, the requested one last. */
  scopes: RunScope[];
  /** The child's whole budget (capped by the parent's); restarts get what is left of it. */
  limits: Omit<RunLimits, "deadlineMs">;
  /** Absolute wall-clock deadline (epoch ms), fixed at the first spawn. */
  deadlineAt?: number;
  /** Model override (same endpoint and dialect, another model name). */
  model?: { name: string };
  outputSchema?: Record<string, unknown>;
  /** Stable idempotency id, the same on every attempt. */
  runId: string;
  depth: number;
  /** The parent's span that spawned the child (W3C trace context), when telemetry is on. */
  traceContext?: TraceCarrier;
}

/** One subagent as the table keeps it. */
export interface HandleRecord {
  id: string;
  status: HandleStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long a finished handle is kept after its last update, in ms; null keeps it forever. */
  ttl: number | null;
  /** The run of the parent that spawned it (usage is billed to it), when spawned from a run. */
  owner?: string;
  payload: SpawnPayload;
  /** Usage so far, over every attempt (the child's own subtree included). */
  usage: Usage;
  turns: number;
  toolCalls: number;
  attempts: number;
  result?: SubagentAnswer;
  error?: SubagentFailure;
}

/** A serialisable picture of the table: handles and payloads, never processes or model context. */
export interface HandleSnapshot {
  version: 1;
  takenAt: string;
  handles: HandleRecord[];
}

/** The public task shape of a handle (MCP 2025-11-25 `Task`). */
export interface TaskView {
  taskId: string;
  status: HandleStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
}

/** Whether a status is terminal. */
export const isTerminal = (s: HandleStatus): boolean => s !== "working";

/** Translate a handle into a task. */
export const toTask = (r: HandleRecord): TaskView => ({
  taskId: r.id,
  status: r.status,
  statusMessage: r.statusMessage,
  createdAt: r.createdAt,
  lastUpdatedAt: r.lastUpdatedAt,
  ttl: r.ttl,
});

/** A fresh, URL-safe handle id. */
export const newHandleId = (): string => `sa-${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** Listener of changes: the record after the change, and whether this change made it terminal. */
export type HandleListener = (record: HandleRecord, finished: boolean) => void;

/** The table of handles. Records handed out are copies: the table is changed only through its methods. */
export class HandleTable {
  private readonly records = new Map<string, HandleRecord>();
  private readonly listeners = new Set<HandleListener>();

  constructor(private readonly options: { ttlMs?: number | null; now?: () => number } = {}) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** Add a working handle for a payload. */
  create(payload: SpawnPayload, extra: { id?: string; owner?: string } = {}): HandleRecord {
    const id = extra.id ?? newHandleId();
    if (this.records.has(id)) throw new AgentdError("E_SUPERVISOR", `handle ${id} already exists`);
    const at = new Date(this.now()).toISOString();
    const record: HandleRecord = {
      id,
      status: "working",
      createdAt: at,
      lastUpdatedAt: at,
      ttl: this.options.ttlMs === undefined ? 3_600_000 : this.options.ttlMs,
      owner: extra.owner,
      payload: structuredClone(payload),
      usage: emptyUsage(),
      turns: 0,
      toolCalls: 0,
      attempts: 0,
    };
    this.records.set(id, record);
    this.emit(record, false);
    return structuredClone(record);
  }

  /** A copy of a handle, or undefined (unknown or expired). */
  get(id: string): HandleRecord | undefined {
    this.sweep();
    const r = this.records.get(id);
    return r ? structuredClone(r) : undefined;
  }

  /** Copies of all handles (optionally of one owner), oldest first. */
  list(filter: { owner?: string; status?: HandleStatus } = {}): HandleRecord[] {
    this.sweep();
    return [...this.records.values()]
      .filter(
        (r) => (filter.owner === undefined || r.owner === filter.owner) && (filter.status === undefined || r.status === filter.status),
      )
      .map((r) => structuredClone(r));
  }

  /** How many handles are working. */
  get live(): number {
    let n = 0;
    for (const r of this.records.values()) if (r.status === "working") n++;
    return n;
  }

  /** Update a working handle's progress fields. Ignored once terminal. */
  update(id: string, patch: Partial<Pick<HandleRecord, "usage" | "turns" | "toolCalls" | "attempts" | "statusMessage">>): void {
    const r = this.records.get(id);
    if (!r || isTerminal(r.status)) return;
    Object.assign(r, patch);
    this.touch(r, false);
  }

  /** Mark a handle completed with its answer. */
  complete(id: string, answer: SubagentAnswer, totals: { usage: Usage; turns: number; toolCalls: number }): void {
    this.finish(id, "completed", { result: answer, ...totals });
  }

  /** Mark a handle failed (`cancelled` when the reason is a cancel). */
  fail(id: string, failure: SubagentFailure, totals: { usage: Usage; turns: number; toolCalls: number }): void {
    this.finish(id, failure.reason === "cancelled" ? "cancelled" : "failed", { error: failure, ...totals });
  }

  /** Resolves with the handle once it is terminal (at once if it already is); undefined if unknown. */
  watch(id: string, signal?: AbortSignal): Promise<HandleRecord | undefined> {
    const r = this.records.get(id);
    if (!r) return Promise.resolve(undefined);
    if (isTerminal(r.status)) return Promise.resolve(structuredClone(r));
    return new Promise((resolve, reject) => {
      const done = () => {
        off();
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(signal?.reason ?? new AgentdError("E_ABORTED", "wait aborted"));
      };
      const off = this.onChange((record, finished) => {
        if (record.id !== id || !finished) return;
        done();
        resolve(record);
      });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Observe every change; returns the unsubscribe function. */
  onChange(listener: HandleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sum of usage over handles (optionally of one owner). */
  usage(owner?: string): Usage {
    let u = emptyUsage();
    for (const r of this.records.values()) if (owner === undefined || r.owner === owner) u = addUsage(u, r.usage);
    return u;
  }

  /** A JSON-serialisable snapshot (for the checkpoint). */
  snapshot(filter: { liveOnly?: boolean } = {}): HandleSnapshot {
    const handles = [...this.records.values()].filter((r) => !filter.liveOnly || r.status === "working");
    return { version: 1, takenAt: new Date(this.now()).toISOString(), handles: structuredClone(handles) };
  }

  /** Rebuild a table from a snapshot (records only: no process is started). */
  static fromSnapshot(snapshot: HandleSnapshot, options: { ttlMs?: number | null; now?: () => number } = {}): HandleTable {
    if (snapshot.version !== 1) throw new AgentdError("E_SUPERVISOR", `unsupported handle snapshot version ${String(snapshot.version)}`);
    const table = new HandleTable(options);
    for (const r of snapshot.handles) table.records.set(r.id, structuredClone(r));
    return table;
  }

  /** Put a record back (a checkpoint's handle after a restart). Throws `E_SUPERVISOR` if the id is taken. */
  restore(record: HandleRecord): HandleRecord {
    if (this.records.has(record.id)) throw new AgentdError("E_SUPERVISOR", `handle ${record.id} already exists`);
    const copy = structuredClone(record);
    this.records.set(copy.id, copy);
    this.emit(copy, false);
    return structuredClone(copy);
  }

  /** Drop finished handles older than their ttl. */
  sweep(): void {
    const now = this.now();
    for (const [id, r] of this.records)
      if (isTerminal(r.status) && r.ttl !== null && Date.parse(r.lastUpdatedAt) + r.ttl < now) this.records.delete(id);
  }

  private finish(id: string, status: HandleStatus, patch: Partial<HandleRecord>): void {
    const r = this.records.get(id);
    if (!r || isTerminal(r.status)) return;
    Object.assign(r, patch, { status });
    delete r.statusMessage;
    this.touch(r, true);
  }

  private touch(r: HandleRecord, finished: boolean): void {
    r.lastUpdatedAt = new Date(this.now()).toISOString();
    this.emit(r, finished);
  }

  private emit(r: HandleRecord, finished: boolean): void {
    if (this.listeners.size === 0) return;
    const copy = structuredClone(r);
    for (const l of this.listeners) l(copy, finished);
  }
}
