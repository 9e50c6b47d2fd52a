/**
 * Task-augmented `tools/call` (tasks on): send the call with a `task` field, poll `tasks/get` at the
 * server's `pollInterval` until the task is terminal (or needs input), then fetch `tasks/result`.
 * Aborting (caller signal or the overall ceiling) sends `tasks/cancel` — the tasks spec says task-augmented
 * requests are cancelled that way, not with `notifications/cancelled`.
 */
import { setLongTimeout } from "../../_internal/timer.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import type { CallToolResult, Task } from "../../wire/index.ts";
import type { Protocol } from "../protocol/protocol.ts";
import type { RequestOptions } from "../protocol/types.ts";

/** Poll interval when the server suggests none (ms). */
export const DEFAULT_POLL_MS = 1_000;
/** Bounds on a server-suggested poll interval, so a hostile value can neither spin nor stall us. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 30_000;

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Options of {@link callToolAsTask}. */
export interface TaskCallOptions extends RequestOptions {
  /** Requested task lifetime (ms). */
  ttlMs?: number;
  /** Told of each `tasks/cancel` in flight, so closing the client can let it reach the server first. */
  trackCancel?: (sent: Promise<unknown>) => void;
  /**
   * A task this call started before a restart (the checkpoint's journal): poll it instead of calling the
   * tool again. A server that no longer knows it (any JSON-RPC error on `tasks/get`) gets the call anew.
   */
  resumeTaskId?: string;
  /** Told the task id when the server accepts the call as a task (or a resumed one is known). */
  onTaskStarted?: (taskId: string) => void;
  /** Told when the task's result was fetched, or a resumed task is unknown to the server. */
  onTaskEnded?: () => void;
  /** Told when a resumed task was known and is followed instead of a new call. */
  onResumed?: (taskId: string) => void;
}

/** Run `tools/call` as a task and return the tool's result. */
export async function callToolAsTask(
  protocol: Protocol,
  params: Record<string, unknown>,
  options: TaskCallOptions,
): Promise<CallToolResult> {
  const deadline = options.maxTotalTimeoutMs === undefined ? Infinity : Date.now() + options.maxTotalTimeoutMs;
  const local = new AbortController();
  const cancelTimer = setLongTimeout(() => local.abort(), deadline - Date.now());
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
  const each: RequestOptions = { signal, timeoutMs: options.timeoutMs, relatedRequestId: options.relatedRequestId };
  let taskId: string | undefined;
  let cancelSent = false;
  // Sent the moment the signal aborts: the caller (a run past its deadline) may not wait for our unwinding.
  const cancel = () => {
    if (taskId === undefined || cancelSent) return;
    cancelSent = true;
    const sent = protocol.request("tasks/cancel", { taskId }, { timeoutMs: 5_000 }).catch(() => {});
    options.trackCancel?.(sent);
  };
  signal.addEventListener("abort", cancel, { once: true });
  try {
    let current = options.resumeTaskId === undefined ? undefined : await resume(protocol, options.resumeTaskId, each, options);
    if (!current) {
      const task = options.ttlMs === undefined ? {} : { ttl: options.ttlMs };
      const created = await protocol.request<Record<string, unknown>>(
        "tools/call",
        { ...params, task },
        { ...options, signal, maxTotalTimeoutMs: undefined, validateResult: false },
      );
      // A receiver that did not take the task answers normally (tasks spec: it MUST process it as usual).
      if (!isTask(created.task)) return created as CallToolResult;
      current = created.task;
      options.onTaskStarted?.(current.taskId);
    }
    taskId = current.taskId;
    if (signal.aborted) cancel();
    while (!TERMINAL.has(current.status) && current.status !== "input_required") {
      await delay(clamp(current.pollInterval ?? DEFAULT_POLL_MS), signal);
      current = await protocol.request<Task>("tasks/get", { taskId }, each);
    }
    // tasks/result blocks until the task is terminal (and carries input_required exchanges meanwhile).
    const result = await protocol.request<CallToolResult>(
      "tasks/result",
      { taskId },
      { ...each, timeoutMs: remaining(deadline, options.timeoutMs) },
    );
    taskId = undefined;
    options.onTaskEnded?.();
    return result;
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

/** `tasks/get` of a task started before a restart: the task, or undefined when the server does not know it. */
async function resume(protocol: Protocol, taskId: string, each: RequestOptions, options: TaskCallOptions): Promise<Task | undefined> {
  try {
    const task = await protocol.request<Task>("tasks/get", { taskId }, each);
    if (isTask(task)) {
      options.onResumed?.(taskId);
      return task;
    }
    options.onTaskEnded?.();
    return undefined;
  } catch (e) {
    // Expired, never known, or another principal's (all "not found"): the call is made again.
    if (!McpError.isInstance(e)) throw e;
    options.onTaskEnded?.();
    return undefined;
  }
}

function isTask(v: unknown): v is Task {
  return typeof v === "object" && v !== null && typeof (v as Task).taskId === "string" && typeof (v as Task).status === "string";
}

/** A server-suggested poll interval, bounded. */
export const clamp = (ms: number) => Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms));

/** Time left to `deadline` (at least 1 ms), or `timeoutMs` when there is none. */
export function remaining(deadline: number, timeoutMs: number | undefined): number | undefined {
  if (deadline === Infinity) return timeoutMs;
  return Math.max(1, deadline - Date.now());
}

/** Wait `ms`, or reject with E_ABORTED when `signal` aborts first. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new AgentdError("E_ABORTED", "task polling aborted"));
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new AgentdError("E_ABORTED", "task polling aborted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
