/**
 * The client side of the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`): a `tools/call`
 * answered with `resultType: "task"` is followed to its end and the caller gets the tool's result, as
 * with a 2025-11-25 task (`tasks.ts`, whose polling bounds and cancel-on-abort it shares):
 * poll `tasks/get` at the task's `pollIntervalMs`; `completed` carries the result, `failed` the JSON-RPC
 * error (thrown as such); `input_required` input is answered by the same policies as an input-required
 * result and sent with `tasks/update` (each key once — a key already answered is not asked again);
 * aborting sends `tasks/cancel` (never `notifications/cancelled`, extension spec).
 */
import { setLongTimeout } from "../../_internal/timer.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import type { CallToolResult } from "../../wire/index.ts";
import { detailedTaskProblem } from "../../wire/schemas/tasks-extension.ts";
import type { ExtensionDetailedTask } from "../../wire/types/tasks-extension.generated.ts";
import { clamp, DEFAULT_POLL_MS, delay } from "./tasks.ts";
import type { Protocol } from "../protocol/protocol.ts";
import type { RequestOptions } from "../protocol/types.ts";

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Options of {@link followTask}. */
export interface FollowTaskOptions extends RequestOptions {
  /** Answer a task's input requests (the capability map's policies); key → response. */
  answer(
    requests: Record<string, { method?: unknown; params?: unknown }>,
    signal: AbortSignal,
  ): Promise<Record<string, Record<string, unknown>>>;
  /** Told of each `tasks/cancel` in flight, so closing the client can let it reach the server first. */
  trackCancel?: (sent: Promise<unknown>) => void;
}

/** Follow the task a `CreateTaskResult` names until it settles; the tool's result, or its error thrown. */
export async function followTask(
  protocol: Protocol,
  created: Record<string, unknown>,
  options: FollowTaskOptions,
): Promise<CallToolResult> {
  const deadline = options.maxTotalTimeoutMs === undefined ? Infinity : Date.now() + options.maxTotalTimeoutMs;
  const local = new AbortController();
  const cancelTimer = setLongTimeout(() => local.abort(), deadline - Date.now());
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
  const each: RequestOptions = { signal, timeoutMs: options.timeoutMs, relatedRequestId: options.relatedRequestId };
  const taskId = created.taskId as string;
  let settled = false;
  const cancel = () => {
    if (settled) return;
    settled = true;
    const sent = protocol.request("tasks/cancel", { taskId }, { timeoutMs: 5_000 }).catch(() => {});
    options.trackCancel?.(sent);
  };
  signal.addEventListener("abort", cancel, { once: true });
  const answered = new Set<string>();
  try {
    if (signal.aborted) cancel();
    let task = created as ExtensionDetailedTask;
    let first = true;
    while (!TERMINAL.has(task.status)) {
      if (task.status === "input_required" && !first) {
        const pending = Object.fromEntries(Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key)));
        if (Object.keys(pending).length > 0) {
          const inputResponses = await options.answer(pending, signal);
          for (const key of Object.keys(inputResponses)) answered.add(key);
          await protocol.request("tasks/update", { taskId, inputResponses }, each);
        }
      }
      first = false;
      await delay(clamp(task.pollIntervalMs ?? DEFAULT_POLL_MS), signal);
      task = await protocol.request<ExtensionDetailedTask>("tasks/get", { taskId }, each);
      const problem = detailedTaskProblem(task);
      if (problem !== undefined) throw new AgentdError("E_UPSTREAM", `tasks/get for task ${taskId}: ${problem}`);
    }
    settled = true;
    if (task.status === "completed") return task.result as unknown as CallToolResult;
    if (task.status === "failed") throw new McpError(task.error!.code, task.error!.message, task.error!.data);
    throw new AgentdError("E_UPSTREAM", `the server cancelled task ${taskId}${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
  } catch (e) {
    if (signal.aborted) cancel();
    if (local.signal.aborted && !options.signal?.aborted)
      throw new AgentdError("E_TIMEOUT", `tools/call task exceeded its maximum total time of ${options.maxTotalTimeoutMs}ms`, {
        retryable: true,
      });
    throw e;
  } finally {
    signal.removeEventListener("abort", cancel);
    cancelTimer();
  }
}
