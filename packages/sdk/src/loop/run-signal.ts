/**
 * One AbortController for the whole run. The wall-clock deadline and the caller's signal both abort it;
 * its signal goes to every model request and every tool call, so a trip interrupts the model request in
 * flight and cancels tool calls in flight (the ToolSet turns that into MCP `notifications/cancelled`).
 */
import { setLongTimeout } from "../_internal/timer.ts";
import { AgentdError } from "../wire/errors.ts";
import type { Trip } from "./budget.ts";

/** The run's abort signal and what aborted it. */
export interface RunSignal {
  readonly signal: AbortSignal;
  /** Set once the run is aborted: by the deadline or by the caller. */
  readonly trip: Trip | undefined;
  /** Release the timer and the caller-signal listener, and cancel whatever is still in flight. */
  dispose(): void;
}

/**
 * Link the caller's signal and the deadline into one signal for the run. `spentMs`: running time an earlier
 * part of the run already used (a run resumed after waiting), so the deadline strikes that much sooner.
 */
export function createRunSignal(deadlineMs: number | undefined, caller: AbortSignal | undefined, spentMs = 0): RunSignal {
  const controller = new AbortController();
  let trip: Trip | undefined;
  const abort = (t: Trip) => {
    if (controller.signal.aborted) return;
    trip = t;
    // The reason is an AgentdError so a tool or adapter can tell a deadline from a caller's cancel.
    controller.abort(new AgentdError(t.code, t.message));
  };
  // A caller that says why (an E_ABORTED error: "run cancelled by shutdown") is quoted; otherwise the caller aborted.
  const onCallerAbort = () => {
    const why = caller?.reason;
    abort({
      code: "E_ABORTED",
      stopReason: "aborted",
      message: AgentdError.isInstance(why) && why.code === "E_ABORTED" ? why.message : "run aborted by the caller",
    });
  };
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener("abort", onCallerAbort, { once: true });
  // Through setLongTimeout: a deadline of weeks ("30d") must not overflow setTimeout and fire at once.
  const cancelTimer =
    deadlineMs === undefined
      ? undefined
      : setLongTimeout(
          () =>
            abort({
              code: "E_BUDGET_DEADLINE",
              stopReason: "deadline",
              message: `deadline exceeded: the run took longer than ${deadlineMs} ms`,
            }),
          Math.max(0, deadlineMs - spentMs),
        );
  return {
    signal: controller.signal,
    get trip() {
      return trip;
    },
    dispose() {
      cancelTimer?.();
      // Anything still in flight once the run is over is cancelled, not left running.
      if (!controller.signal.aborted) controller.abort(new AgentdError("E_ABORTED", "run ended"));
      caller?.removeEventListener("abort", onCallerAbort);
    },
  };
}

/**
 * Settle with `promise`, or reject with the signal's reason as soon as it aborts, whichever is first:
 * a model or tool that ignores its signal cannot hold the run past its deadline.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}
