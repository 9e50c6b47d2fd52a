/**
 * The server side of MCP tasks (2025-11-25, "basic/utilities/tasks"): how a generic {@link McpServer}
 * answers a task-augmented `tools/call` and the `tasks/*` methods. The server core keeps no task state:
 * it hands both to a {@link TaskReceiver} given in its options (agentd's is a translation of its runs and
 * supervised handles, `serve/mcp-tasks.ts`). Without a receiver, or with `capabilities.tasks` off, nothing
 * is declared and `params.task` is ignored — the tasks spec's rule for a receiver that does not declare it.
 */
import { invalidParams, McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import type { CallToolResult, Tool } from "../../wire/index.ts";
import type { RequestContext } from "../protocol/types.ts";
import type { TaskDetail } from "./tasks-extension.ts";

/** A task's status (2025-11-25). */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as the wire shows it. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds from creation the task is kept; `null` for unlimited. */
  ttl: number | null;
  pollInterval?: number;
}

/** One task-augmented tool call handed to the receiver. */
export interface TaskCall {
  /** The tool's name. */
  tool: string;
  /** The call's arguments (as validated against the tool's input schema). */
  args?: Record<string, unknown>;
  /**
   * Run the tool; the receiver owns the signal (the `tools/call` request itself ends at once). `args`, when
   * given, replace the call's own (a receiver that retains the request fixes what a re-run needs, e.g. a run id).
   */
  run(signal: AbortSignal, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The requested `params.task.ttl`, when given. */
  ttl?: number;
  /** The `tools/call` request's context: who asked, on which session. */
  ctx: RequestContext;
  /** Send a notification to the session that created the task (`notifications/tasks/status`). */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

/** What the server core needs from a task store. Each method sees the request's context (its principal). */
export interface TaskReceiver {
  create(call: TaskCall): TaskView;
  get(taskId: string, ctx: RequestContext): TaskView;
  /** The underlying request's result once terminal (blocks until then), or throws its JSON-RPC error. */
  result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>>;
  list(cursor: string | undefined, ctx: RequestContext): { tasks: TaskView[]; nextCursor?: string };
  cancel(taskId: string, ctx: RequestContext): TaskView;
  /**
   * The task and, once settled, its outcome, without waiting (the tasks extension of 2026-07-28 inlines
   * it in `tasks/get`). A receiver without it is served to 2025-11-25 sessions only.
   */
  detail?(taskId: string, ctx: RequestContext): TaskDetail;
  /** Input the task asked for (tasks extension `tasks/update`); keys not outstanding are ignored. */
  update?(taskId: string, inputResponses: Record<string, Record<string, unknown>>, ctx: RequestContext): void;
}

/** The one revision whose handshake carries tasks as served here. */
export const TASKS_REVISION = "2025-11-25";

/** The `_meta` key tying a message to its task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * Tool-level negotiation ("Tool-Level Negotiation"): whether a `tools/call` runs as a task, runs
 * normally, or is refused with -32601 (a task for a tool that forbids it; no task for one that requires it).
 */
export function taskMode(tool: Tool, asked: boolean): "task" | "plain" {
  const support = tool.execution?.taskSupport ?? "forbidden";
  if (asked && support === "forbidden")
    throw new McpError(ErrorCode.MethodNotFound, `tool ${tool.name} does not support task-augmented calls`);
  if (!asked && support === "required")
    throw new McpError(ErrorCode.MethodNotFound, `tool ${tool.name} must be called as a task (params.task)`);
  return asked ? "task" : "plain";
}

/** The `tasks/*` request handlers over a receiver (gated by the declared `tasks` capability). */
export function taskMethodHandlers(receiver: () => TaskReceiver | undefined) {
  const need = (): TaskReceiver => {
    const r = receiver();
    if (!r) throw new McpError(ErrorCode.MethodNotFound, "tasks are not served here");
    return r;
  };
  const idOf = (p: Record<string, unknown>) => {
    if (typeof p.taskId !== "string") throw invalidParams("taskId must be a string");
    return p.taskId;
  };
  return {
    "tasks/get": (p: Record<string, unknown>, ctx: RequestContext) => need().get(idOf(p), ctx) as unknown as Record<string, unknown>,
    "tasks/result": (p: Record<string, unknown>, ctx: RequestContext) => need().result(idOf(p), ctx),
    "tasks/list": (p: Record<string, unknown>, ctx: RequestContext) =>
      need().list(typeof p.cursor === "string" ? p.cursor : undefined, ctx) as unknown as Record<string, unknown>,
    "tasks/cancel": (p: Record<string, unknown>, ctx: RequestContext) => need().cancel(idOf(p), ctx) as unknown as Record<string, unknown>,
  };
}
