/**
 * A tool call's progress as run events. Asking for progress is what lets a long tool live: every MCP
 * `tools/call` then carries a `progressToken`, and each notification restarts the request's timeout (up to
 * its ceiling). What reaches the run's listeners and telemetry is rate-limited — at most one `tool-call-progress`
 * a second per call, the latest one winning (a trailing one is sent when a quiet second ends) — since a tool
 * may report many times a second.
 */
import type { Emit, RunEvent } from "./events.ts";
import { preview } from "./events.ts";

/** The least time between two `tool-call-progress` events of one call. */
export const TOOL_PROGRESS_INTERVAL_MS = 1000;

/** One progress notification as the ToolSet reports it. */
export type ToolProgress = { progress: number; total?: number; message?: string };

type Call = Pick<Extract<RunEvent, { type: "tool-call-progress" }>, "runId" | "turn" | "toolCallId" | "name" | "qualifiedName">;

/** The progress reporter of one call, and `end()` to drop a pending trailing event when the call ends. */
export function toolProgressReporter(
  emit: Emit,
  call: Call,
  intervalMs = TOOL_PROGRESS_INTERVAL_MS,
): { report(p: ToolProgress): void; end(): void } {
  const started = performance.now();
  let last = -Infinity;
  let pending: ToolProgress | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  const send = (p: ToolProgress) => {
    last = performance.now();
    pending = undefined;
    emit({
      type: "tool-call-progress",
      ...call,
      progress: p.progress,
      total: p.total,
      message: p.message ? preview(p.message) : undefined,
      elapsedMs: Math.round(last - started),
    });
  };
  return {
    report(p) {
      if (ended) return;
      const wait = last + intervalMs - performance.now();
      if (wait <= 0) return send(p);
      pending = p;
      timer ??= setTimeout(() => {
        timer = undefined;
        if (pending && !ended) send(pending);
      }, wait);
    },
    end() {
      ended = true;
      if (timer) clearTimeout(timer);
    },
  };
}
