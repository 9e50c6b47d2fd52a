/**
 * Outbound requests awaiting their response: the per-request timeout, its reset on progress, the
 * absolute ceiling, and the caller's abort signal.
 *
 * Lifecycle spec ("Timeouts"): senders SHOULD time out and cancel; MAY reset the clock on progress;
 * SHOULD always enforce a maximum regardless of progress. Abandoning a request (timeout or abort) calls
 * `onabandon` so the protocol can send `notifications/cancelled`.
 */
import { setLongTimeout, type CancelTimer } from "../_internal/timer.ts";
import { AgentdError } from "../wire/errors.ts";
import type { RequestId } from "../wire/jsonrpc.ts";
import type { Progress, ProgressToken } from "./types.ts";

/** How a pending request was abandoned locally. */
export type AbandonReason = "timeout" | "ceiling" | "aborted";

interface Entry {
  id: RequestId;
  method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
  timeoutMs: number;
  maxTotalTimeoutMs?: number;
  /** Absolute deadline (ms since epoch) from `maxTotalTimeoutMs`, or Infinity. */
  ceilingAt: number;
  resetOnProgress: boolean;
  onprogress?: (progress: Progress) => void;
  progressToken?: ProgressToken;
  cancelTimer?: CancelTimer;
  detachSignal?: () => void;
}

/** Told when a request is given up locally (not on close or response), to tell the peer. */
export interface AbandonListener {
  requestAbandoned(id: RequestId, method: string, reason: AbandonReason): void;
}

/** Everything needed to track one request. */
export interface PendingInit {
  id: RequestId;
  method: string;
  timeoutMs: number;
  maxTotalTimeoutMs?: number;
  resetOnProgress: boolean;
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
  progressToken?: ProgressToken;
}

/** The table of in-flight outbound requests of one protocol peer. */
export class PendingRequests {
  // Created on first use: a server session may never send a request.
  private byId: Map<RequestId, Entry> | undefined;
  private byToken: Map<ProgressToken, Entry> | undefined;

  /** @param listener told once when a request is given up locally (not on close or response). */
  constructor(private readonly listener: AbandonListener) {}

  /** Number of requests in flight. */
  get size(): number {
    return this.byId?.size ?? 0;
  }

  /** Track a request; the promise settles on response, timeout, abort or {@link rejectAll}. */
  add(init: PendingInit): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const ceilingAt = init.maxTotalTimeoutMs === undefined ? Infinity : Date.now() + init.maxTotalTimeoutMs;
      const entry: Entry = { ...init, resolve, reject, ceilingAt };
      if (init.signal?.aborted) {
        reject(abortedError(init.method, init.signal));
        return;
      }
      (this.byId ??= new Map()).set(init.id, entry);
      if (init.progressToken !== undefined) (this.byToken ??= new Map()).set(init.progressToken, entry);
      if (init.signal) {
        const signal = init.signal;
        const onAbort = () => this.abandon(entry, "aborted", abortedError(entry.method, signal));
        signal.addEventListener("abort", onAbort, { once: true });
        entry.detachSignal = () => signal.removeEventListener("abort", onAbort);
      }
      this.arm(entry);
    });
  }

  /** Whether `id` is in flight. */
  has(id: RequestId): boolean {
    return this.byId?.has(id) ?? false;
  }

  /** The method of an in-flight request (to validate its result). */
  methodOf(id: RequestId): string | undefined {
    return this.byId?.get(id)?.method;
  }

  /** Settle with a result. Returns false when `id` is unknown. */
  resolve(id: RequestId, result: Record<string, unknown>): boolean {
    const entry = this.take(id);
    entry?.resolve(result);
    return entry !== undefined;
  }

  /** Settle with an error. Returns false when `id` is unknown. */
  reject(id: RequestId, error: unknown): boolean {
    const entry = this.take(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** Deliver a progress notification. Returns false when the token belongs to no request in flight. */
  progress(token: ProgressToken, progress: Progress): boolean {
    const entry = this.byToken?.get(token);
    if (!entry) return false;
    if (entry.resetOnProgress) this.arm(entry);
    try {
      entry.onprogress?.(progress);
    } catch {
      // The callback is the caller's code; a throw there must not disturb the request.
    }
    return true;
  }

  /** Reject everything (connection closed). Does not call `onabandon`: there is no one to tell. */
  rejectAll(error: () => unknown): void {
    for (const id of [...(this.byId?.keys() ?? [])]) this.reject(id, error());
  }

  /** (Re)start the timer: the per-request timeout, cut short by the ceiling. */
  private arm(entry: Entry): void {
    entry.cancelTimer?.();
    const untilCeiling = entry.ceilingAt - Date.now();
    const ceilingFirst = untilCeiling <= entry.timeoutMs;
    const delay = Math.max(0, Math.min(entry.timeoutMs, untilCeiling));
    // setLongTimeout: a timeout past 2^31-1 ms (or Infinity, "no timeout") must not fire after 1 ms.
    entry.cancelTimer = setLongTimeout(() => {
      const reason: AbandonReason = ceilingFirst ? "ceiling" : "timeout";
      const message = ceilingFirst
        ? `${entry.method} exceeded its maximum total time of ${entry.maxTotalTimeoutMs}ms`
        : `${entry.method} timed out after ${entry.timeoutMs}ms without a response`;
      this.abandon(
        entry,
        reason,
        new AgentdError("E_TIMEOUT", message, {
          retryable: true,
          data: { method: entry.method, timeoutMs: entry.timeoutMs, maxTotalTimeoutMs: entry.maxTotalTimeoutMs, ceiling: ceilingFirst },
        }),
      );
    }, delay);
  }

  private abandon(entry: Entry, reason: AbandonReason, error: AgentdError): void {
    if (this.take(entry.id) !== entry) return;
    this.listener.requestAbandoned(entry.id, entry.method, reason);
    entry.reject(error);
  }

  private take(id: RequestId): Entry | undefined {
    const entry = this.byId?.get(id);
    if (!entry) return undefined;
    this.byId!.delete(id);
    if (entry.progressToken !== undefined) this.byToken?.delete(entry.progressToken);
    entry.cancelTimer?.();
    entry.detachSignal?.();
    return entry;
  }
}

function abortedError(method: string, signal: AbortSignal): AgentdError {
  const reason = signal.reason instanceof Error ? signal.reason.message : signal.reason;
  const detail = typeof reason === "string" && reason ? `: ${reason}` : "";
  return new AgentdError("E_ABORTED", `${method} was aborted by the caller${detail}`, { cause: signal.reason });
}
