/**
 * The server side of the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a translation of
 * the same {@link TaskReceiver} the 2025-11-25 `tasks/*` methods use, never a second task store.
 * - negotiation: declared under `extensions` in `server/discover` (a receiver able to report a task's
 *   outcome is attached and tasks are on); a request may get a task only when its own `_meta`
 *   capabilities list the extension (extension spec, "Capability Negotiation");
 * - the server decides per request: a tool with `execution.taskSupport` `"required"` or `"optional"` runs as
 *   a task for a client that declared the extension; `"required"` for one that did not is -32021 naming
 *   the extension;
 * - `tasks/get` inlines `result` / `error`; a tool result with `isError: true` is `completed` here (the
 *   2025-11-25 view calls it `failed`; the extension keeps `failed` for JSON-RPC errors only);
 * - `tasks/update` answers input the task asked for (none of agentd's tasks asks: every key is "not
 *   outstanding" and ignored, as the spec lets a server); `tasks/cancel` acknowledges with `{}`, even for a
 *   task already terminal (cancellation is cooperative); unknown ids are -32602.
 */
import { McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import { STATELESS_META } from "../../wire/schemas/stateless-meta.ts";
import { hasTasksExtension, TASKS_EXTENSION } from "../../wire/schemas/tasks-extension-id.ts";
import type { Tool } from "../../wire/index.ts";
import type { TaskReceiver, TaskView } from "./tasks.ts";
import type { RequestContext } from "../protocol/types.ts";

/** A task's state and, once settled, what its request produced (a receiver that can say so serves the extension). */
export interface TaskDetail {
  view: TaskView;
  outcome?: { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } };
}

/** The -32021 the extension prescribes for a client that must declare it. */
export function tasksExtensionRequired(why: string): McpError {
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: ${why} needs the ${TASKS_EXTENSION} extension in this request's _meta capabilities`,
    {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
}

/** Whether a stateless request's `_meta` capabilities list the extension. */
export const requestDeclaresTasks = (ctx: RequestContext): boolean =>
  hasTasksExtension(ctx.meta[STATELESS_META.clientCapabilities] as { extensions?: unknown } | undefined);

/** Whether a tool call runs as a task: the server's choice, bounded by what the client declared. */
export function extensionTaskMode(tool: Tool, clientDeclared: boolean): "task" | "plain" {
  const support = tool.execution?.taskSupport ?? "forbidden";
  if (support === "forbidden") return "plain";
  if (!clientDeclared) {
    if (support === "required") throw tasksExtensionRequired(`tool ${tool.name} runs only as a task, so calling it`);
    return "plain";
  }
  return "task";
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** The extension's `Task` fields of a view (`ttlMs` / `pollIntervalMs`, not 2025-11-25's names). */
function taskFields(view: TaskView): Record<string, unknown> {
  const out: Record<string, unknown> = {
    taskId: view.taskId,
    status: view.status,
    createdAt: view.createdAt,
    lastUpdatedAt: view.lastUpdatedAt,
    ttlMs: view.ttl,
  };
  if (view.statusMessage !== undefined) out.statusMessage = view.statusMessage;
  if (view.pollInterval !== undefined) out.pollIntervalMs = view.pollInterval;
  return out;
}

/** The flat `CreateTaskResult` answering a request the server runs as a task. */
export const createTaskResult = (view: TaskView): Record<string, unknown> => ({ resultType: "task", ...taskFields(view) });

/** A `DetailedTask`: the status's payload inlined (what `tasks/get` answers and `notifications/tasks` carries). */
export function detailedTask(detail: TaskDetail): Record<string, unknown> {
  const out = taskFields(detail.view);
  const outcome = detail.outcome;
  if (outcome !== undefined && "result" in outcome) {
    out.status = "completed";
    out.result = outcome.result;
  } else if (outcome !== undefined && out.status === "failed") {
    const e = outcome.error;
    out.error = e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data };
  }
  return out;
}

/** The caller's task in detail, or -32602 (the receiver's verdict for an unknown or foreign id). */
function detailOf(receiver: TaskReceiver, taskId: string, ctx: RequestContext): TaskDetail {
  if (receiver.detail === undefined) throw new McpError(ErrorCode.MethodNotFound, "tasks are not served to this revision here");
  return receiver.detail(taskId, ctx);
}

/** Answer one of the extension's requests (`tasks/get`, `tasks/update`, `tasks/cancel`) from `receiver`, after checking the request declared the extension. */
export function handleExtensionTaskRequest(
  receiver: TaskReceiver,
  p: Record<string, unknown>,
  ctx: RequestContext,
  method: string,
): Record<string, unknown> {
  if (!requestDeclaresTasks(ctx)) throw tasksExtensionRequired(method);
  const taskId = p.taskId as string;
  const detail = detailOf(receiver, taskId, ctx);
  if (method === "tasks/get") return detailedTask(detail);
  if (method === "tasks/update") {
    receiver.update?.(taskId, p.inputResponses as Record<string, Record<string, unknown>>, ctx);
    return {};
  }
  if (!TERMINAL.has(detail.view.status)) receiver.cancel(taskId, ctx);
  return {};
}

/** The task ids of a listen filter the caller may follow (its own, known ones). */
export function followableTasks(receiver: TaskReceiver | undefined, taskIds: readonly string[], ctx: RequestContext): string[] {
  if (receiver?.detail === undefined) return [];
  return taskIds.filter((id) => {
    try {
      receiver.detail!(id, ctx);
      return true;
    } catch {
      return false;
    }
  });
}
