/**
 * MCP tasks as a view of agentd's supervised work: a task-augmented `tools/call` of `agent.run` or
 * `subagent.spawn` starts the same run (run registry) or handle (supervisor) a plain call would, in the
 * background; `tasks/*` report it. Only the outcome and status cross over — never the internal control
 * channel. (A2A tasks are another translation of the same work, kept in their own file.)
 *
 * Tasks belong to the principal that created them (`principal.ts`): another principal's task id is
 * "not found", and `tasks/list` lists the caller's own. Ids are 128 random bits (CSPRNG). A task is kept
 * for its `ttl` from creation (the requested one, capped), then forgotten once terminal.
 */
import { withoutUndefined } from "../_internal/without-undefined.ts";
import { randomBytes } from "node:crypto";
import { invalidParams, McpError } from "../wire/errors.ts";
import { ErrorCode } from "../wire/jsonrpc.ts";
import type { CallToolResult } from "../wire/index.ts";
import { RELATED_TASK, type TaskCall, type TaskReceiver, type TaskStatus, type TaskView } from "../mcp/server/tasks.ts";
import type { RequestContext } from "../mcp/protocol/types.ts";
import type { TaskDetail } from "../mcp/server/tasks-extension.ts";
import { retainedAuth, type ServedTaskJournal, type ServedTaskRecord } from "./served-task-journal.ts";

/** Options of {@link McpTaskTable}. */
export interface McpTaskOptions {
  /** The principal id of a request (tasks are bound to it). */
  ownerOf(ctx: RequestContext): string;
  /** Suggested polling interval, ms (default 1000). */
  pollIntervalMs?: number;
  /** `ttl` when the requestor asks none, ms (default 1 hour). */
  defaultTtlMs?: number;
  /** The longest `ttl` granted, ms (default 24 hours). */
  maxTtlMs?: number;
  /** Tasks kept per principal, the oldest terminal going first past it (default 1000). */
  maxTasksPerOwner?: number;
  /** Tasks per `tasks/list` page (default 100). */
  pageSize?: number;
  /** Where tasks that are not terminal are noted, so a restart re-runs them (the checkpoint; off by default). */
  journal?: ServedTaskJournal;
  /**
   * The request a re-run needs, fixed now (e.g. a run id assigned), with its run id; undefined when the
   * tool's tasks are not retained.
   */
  retain?(tool: string, args: Record<string, unknown>): { args: Record<string, unknown>; runId: string } | undefined;
  /** Re-run a retained request as its principal (after a restart). */
  rerun?(record: ServedTaskRecord, signal: AbortSignal): Promise<CallToolResult>;
}

interface Entry {
  owner: string;
  view: TaskView;
  abort: AbortController;
  outcome?: { result: CallToolResult } | { error: McpError };
  done: Promise<void>;
  notify: TaskCall["notify"];
}

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** The task store of the served agent. */
export class McpTaskTable implements TaskReceiver {
  private readonly tasks = new Map<string, Entry>();
  private readonly counts = new Map<string, number>();
  private sweptAt = 0;
  private closing = false;
  private readonly o: Required<Omit<McpTaskOptions, "ownerOf" | "journal" | "retain" | "rerun">> &
    Pick<McpTaskOptions, "ownerOf" | "journal" | "retain" | "rerun">;

  constructor(options: McpTaskOptions) {
    this.o = {
      pollIntervalMs: 1000,
      defaultTtlMs: 3_600_000,
      maxTtlMs: 86_400_000,
      maxTasksPerOwner: 1000,
      pageSize: 100,
      ...withoutUndefined(options),
      ownerOf: options.ownerOf,
    };
  }

  create(call: TaskCall): TaskView {
    this.sweep();
    const owner = this.o.ownerOf(call.ctx);
    const now = new Date().toISOString();
    const ttl = Math.min(Math.max(0, call.ttl ?? this.o.defaultTtlMs), this.o.maxTtlMs);
    const view: TaskView = {
      taskId: randomBytes(16).toString("base64url"),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: this.o.pollIntervalMs,
    };
    const abort = new AbortController();
    const entry: Entry = { owner, view, abort, notify: call.notify, done: Promise.resolve() };
    const kept = this.o.journal && call.args ? this.o.retain?.(call.tool, call.args) : undefined;
    if (kept) {
      const auth = retainedAuth(call.ctx.authInfo);
      this.o.journal!.started({
        taskId: view.taskId,
        owner,
        auth,
        tool: call.tool,
        args: kept.args,
        runId: kept.runId,
        ttl,
        createdAt: now,
      });
    }
    this.start(entry, call.run(abort.signal, kept?.args));
    this.tasks.set(view.taskId, entry);
    this.counts.set(owner, (this.counts.get(owner) ?? 0) + 1);
    this.trim(owner);
    return { ...view };
  }

  /**
   * Re-create tasks noted before a restart under their ids and owners, each re-running its retained
   * request (`rerun`); their sessions are gone, so no status notification is sent. Returns how many.
   */
  restore(records: readonly ServedTaskRecord[]): number {
    const rerun = this.o.rerun;
    if (!rerun) return 0;
    let n = 0;
    for (const r of records) {
      if (this.tasks.has(r.taskId)) continue;
      const view: TaskView = {
        taskId: r.taskId,
        status: "working",
        createdAt: r.createdAt,
        lastUpdatedAt: new Date().toISOString(),
        ttl: r.ttl,
        pollInterval: this.o.pollIntervalMs,
      };
      const abort = new AbortController();
      const entry: Entry = { owner: r.owner, view, abort, notify: async () => {}, done: Promise.resolve() };
      this.o.journal?.started({ ...r });
      this.start(entry, rerun(r, abort.signal));
      this.tasks.set(r.taskId, entry);
      this.counts.set(r.owner, (this.counts.get(r.owner) ?? 0) + 1);
      n++;
    }
    return n;
  }

  private start(entry: Entry, running: Promise<CallToolResult>): void {
    entry.done = running.then(
      (result) => this.settle(entry, result.isError === true ? "failed" : "completed", { result }),
      (e: unknown) =>
        this.settle(entry, "failed", {
          error: McpError.isInstance(e) ? e : new McpError(ErrorCode.InternalError, e instanceof Error ? e.message : String(e)),
        }),
    );
  }

  get(taskId: string, ctx: RequestContext): TaskView {
    return { ...this.own(taskId, ctx).view };
  }

  detail(taskId: string, ctx: RequestContext): TaskDetail {
    const entry = this.own(taskId, ctx);
    const view = { ...entry.view };
    const o = entry.outcome;
    if (o === undefined || view.status === "cancelled") return { view };
    if ("result" in o) return { view, outcome: { result: { ...o.result } } };
    return {
      view,
      outcome: {
        error:
          o.error.data === undefined
            ? { code: o.error.code, message: o.error.message }
            : { code: o.error.code, message: o.error.message, data: o.error.data },
      },
    };
  }

  async result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>> {
    const entry = this.own(taskId, ctx);
    await entry.done;
    const meta = { [RELATED_TASK]: { taskId } };
    if (entry.view.status === "cancelled")
      throw new McpError(ErrorCode.InvalidParams, `task ${taskId} was cancelled: it has no result`, { _meta: meta });
    const outcome = entry.outcome!;
    if ("error" in outcome)
      throw new McpError(outcome.error.code, outcome.error.message, { ...(asObject(outcome.error.data) ?? {}), _meta: meta });
    return { ...outcome.result, _meta: { ...(outcome.result._meta ?? {}), ...meta } };
  }

  list(cursor: string | undefined, ctx: RequestContext): { tasks: TaskView[]; nextCursor?: string } {
    this.sweep();
    const owner = this.o.ownerOf(ctx);
    const mine = [...this.tasks.values()].filter((e) => e.owner === owner).map((e) => ({ ...e.view }));
    let start = 0;
    if (cursor !== undefined) {
      start = mine.findIndex((t) => t.taskId === cursor);
      if (start < 0) throw invalidParams("invalid or expired tasks/list cursor");
    }
    const page = mine.slice(start, start + this.o.pageSize);
    const next = mine[start + this.o.pageSize];
    return next ? { tasks: page, nextCursor: next.taskId } : { tasks: page };
  }

  /** Every task held with its owner (the operator's console; each page scopes it). */
  views(): { owner: string; view: TaskView }[] {
    this.sweep();
    return [...this.tasks.values()].map((e) => ({ owner: e.owner, view: { ...e.view } }));
  }

  cancel(taskId: string, ctx: RequestContext): TaskView {
    const entry = this.own(taskId, ctx);
    if (TERMINAL.has(entry.view.status)) throw invalidParams(`task ${taskId} is already ${entry.view.status}`);
    // Cancelled before the reply, and sticky: a run finishing afterwards does not change it.
    this.transition(entry, "cancelled", "The task was cancelled by request.");
    entry.abort.abort(new Error("task cancelled"));
    return { ...entry.view };
  }

  /** Stop every running task (the server is closing). */
  close(): void {
    // Tasks aborted by the shutdown stay noted as working: a restart re-runs them.
    this.closing = true;
    for (const e of this.tasks.values()) if (!TERMINAL.has(e.view.status)) e.abort.abort(new Error("server closing"));
  }

  private settle(entry: Entry, status: TaskStatus, outcome: NonNullable<Entry["outcome"]>): void {
    if (TERMINAL.has(entry.view.status)) return;
    entry.outcome = outcome;
    const message = "error" in outcome ? outcome.error.message : undefined;
    this.transition(entry, status, message);
  }

  private transition(entry: Entry, status: TaskStatus, statusMessage?: string): void {
    if (TERMINAL.has(status) && !this.closing) this.o.journal?.ended(entry.view.taskId);
    entry.view.status = status;
    entry.view.lastUpdatedAt = new Date().toISOString();
    if (statusMessage) entry.view.statusMessage = statusMessage;
    else delete entry.view.statusMessage;
    // Optional for the requestor to rely on; a closed session just misses it.
    void entry.notify("notifications/tasks/status", { ...entry.view }).catch(() => {});
  }

  /** The caller's own task, or -32602 (another principal's task is indistinguishable from none). */
  private own(taskId: string, ctx: RequestContext): Entry {
    this.sweep();
    let entry = this.tasks.get(taskId);
    if (entry && expired(entry, Date.now())) {
      this.forget(taskId, entry);
      entry = undefined;
    }
    if (!entry || entry.owner !== this.o.ownerOf(ctx))
      throw invalidParams(`Failed to retrieve task: task ${taskId} not found (or expired)`);
    return entry;
  }

  /** Forget terminal tasks whose ttl has elapsed since creation (a full scan at most every 100 ms). */
  private sweep(): void {
    const now = Date.now();
    if (now - this.sweptAt < 100) return;
    this.sweptAt = now;
    for (const [id, e] of this.tasks) if (expired(e, now)) this.forget(id, e);
  }

  private forget(id: string, e: Entry): void {
    this.tasks.delete(id);
    const n = (this.counts.get(e.owner) ?? 1) - 1;
    if (n > 0) this.counts.set(e.owner, n);
    else this.counts.delete(e.owner);
  }

  /** Bound one principal's tasks: its oldest terminal ones go first. */
  private trim(owner: string): void {
    let excess = (this.counts.get(owner) ?? 0) - this.o.maxTasksPerOwner;
    if (excess <= 0) return;
    for (const [id, e] of this.tasks) {
      if (excess <= 0) break;
      if (e.owner === owner && TERMINAL.has(e.view.status)) {
        this.forget(id, e);
        excess--;
      }
    }
  }
}

/** A terminal task whose ttl has elapsed since its creation. */
const expired = (e: Entry, now: number) =>
  TERMINAL.has(e.view.status) && e.view.ttl !== null && Date.parse(e.view.createdAt) + e.view.ttl <= now;

function asObject(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
