/**
 * Outbound requests awaiting their response: the per-request timeout, its reset on progress, the
 * absolute ceiling, and the caller's abort signal.
 *
 * Lifecycle spec ("Timeouts"): senders SHOULD time out and cancel; MAY reset the clock on progress;
 * SHOULD always enforce a maximum regardless of progress. Abandoning a request (timeout or abort) calls
 * `onabandon` so the protocol can send `notifications/cancelled`.
 *
 * All requests of a peer share one timer ({@link DeadlineQueue}): a request's deadline is the earlier of its
 * timeout and its ceiling, and a response only takes the request out of the queue. One timer per request
 * cost a `setTimeout` and a `clearTimeout` per round trip.
 */
import { DeadlineQueue, type Deadlined } from "../../_internal/deadline-queue.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import type { Progress, ProgressToken, RequestOptions } from "./types.ts";

/** How a pending request was abandoned locally. */
export type AbandonReason = "timeout" | "ceiling" | "aborted";

/** What a request's result becomes before its promise settles with it (see {@link PendingRequests.add}). */
export type ResultMap = (result: Record<string, unknown>) => unknown;

/**
 * The settle functions of the promise being made: one shared executor hands them over, so making a
 * request's promise allocates no closure (the executor runs synchronously inside `new Promise`).
 */
let madeResolve: (value: unknown) => void = noop;
let madeReject: (error: unknown) => void = noop;
const takeSettlers = (resolve: (value: unknown) => void, reject: (error: unknown) => void): void => {
  madeResolve = resolve;
  madeReject = reject;
};

/** One request in flight (a class, so every entry has one shape and is built without spreading). */
class Entry implements Deadlined {
  deadline = 0;
  order = 0;
  slot = -1;
  /** Whether the ceiling, not the timeout, is what {@link deadline} stands for. */
  ceilingFirst = false;
  resolve: (value: unknown) => void = noop;
  reject: (error: unknown) => void = noop;
  detachSignal: (() => void) | undefined = undefined;
  map: ResultMap | undefined = undefined;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly timeoutMs: number,
    readonly maxTotalTimeoutMs: number | undefined,
    /** Absolute deadline (`performance.now()` ms) from `maxTotalTimeoutMs`, or Infinity. */
    readonly ceilingAt: number,
    readonly resetOnProgress: boolean,
    readonly onprogress: ((progress: Progress) => void) | undefined,
    readonly progressToken: ProgressToken | undefined,
  ) {}
}

/** Told when a request is given up locally (not on close or response), to tell the peer. */
export interface AbandonListener {
  requestAbandoned(id: RequestId, method: string, reason: AbandonReason): void;
}

/** Defaults for what a request's options leave out. */
export interface PendingDefaults {
  timeoutMs: number;
  maxTotalTimeoutMs: number | undefined;
}

/** The table of in-flight outbound requests of one protocol peer. */
export class PendingRequests {
  /**
   * The oldest request in flight, in its own slot while it was alone when sent: a caller sending one request at
   * a time then touches no map. `byId` holds the requests sent while others were in flight (created on
   * first use: a server session may never send a request); `sole` and then `byId` are in sending order.
   */
  private sole: Entry | undefined;
  private byId: Map<RequestId, Entry> | undefined;
  private byToken: Map<ProgressToken, Entry> | undefined;
  private deadlines: DeadlineQueue<Entry> | undefined;

  /**
   * @param listener told once when a request is given up locally (not on close or response).
   * @param defaults the timeout and ceiling of a request whose options name none.
   */
  constructor(
    private readonly listener: AbandonListener,
    private readonly defaults: PendingDefaults,
  ) {}

  /** Number of requests in flight. */
  get size(): number {
    return (this.sole === undefined ? 0 : 1) + (this.byId?.size ?? 0);
  }

  /** Whether a timer is keeping the process alive (diagnostics, tests). */
  get keepsAlive(): boolean {
    return this.deadlines?.keepsAlive ?? false;
  }

  /**
   * Track request `id`; the promise settles on response, timeout, abort or {@link rejectAll}. Reads the
   * timeouts, signal and progress callback from `options`; `progressToken` routes progress to it. With
   * `map`, a result settles the promise with what `map` returns for it (a throw rejects it): the caller's
   * step on the result without a promise and a reaction of its own.
   */
  add(id: RequestId, method: string, options: RequestOptions, progressToken: ProgressToken | undefined, map?: ResultMap): Promise<unknown> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(abortedError(method, signal));
    const now = performance.now();
    const maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? this.defaults.maxTotalTimeoutMs;
    const entry = new Entry(
      id,
      method,
      options.timeoutMs ?? this.defaults.timeoutMs,
      maxTotalTimeoutMs,
      maxTotalTimeoutMs === undefined ? Infinity : now + maxTotalTimeoutMs,
      options.resetTimeoutOnProgress ?? true,
      options.onprogress,
      progressToken,
    );
    const promise = new Promise(takeSettlers);
    entry.resolve = madeResolve;
    entry.reject = madeReject;
    entry.map = map;
    if (this.sole === undefined && (this.byId === undefined || this.byId.size === 0)) this.sole = entry;
    else (this.byId ??= new Map()).set(id, entry);
    if (progressToken !== undefined) (this.byToken ??= new Map()).set(progressToken, entry);
    if (signal) {
      const onAbort = () => this.abandon(entry, "aborted", abortedError(entry.method, signal));
      signal.addEventListener("abort", onAbort, { once: true });
      entry.detachSignal = () => signal.removeEventListener("abort", onAbort);
    }
    (this.deadlines ??= new DeadlineQueue((e) => this.timedOut(e))).add(entry, this.deadlineOf(entry, now));
    return promise;
  }

  /** Whether `id` is in flight. */
  has(id: RequestId): boolean {
    return this.find(id) !== undefined;
  }

  /** The method of an in-flight request (to validate its result). */
  methodOf(id: RequestId): string | undefined {
    return this.find(id)?.method;
  }

  /** Settle with a result. Returns false when `id` is unknown. */
  resolve(id: RequestId, result: Record<string, unknown>): boolean {
    const entry = this.take(id);
    if (entry === undefined) return false;
    const map = entry.map;
    if (map === undefined) entry.resolve(result);
    else {
      let mapped: unknown;
      try {
        mapped = map(result);
      } catch (e) {
        entry.reject(e);
        return true;
      }
      entry.resolve(mapped);
    }
    return true;
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
    if (entry.resetOnProgress) this.deadlines?.reschedule(entry, this.deadlineOf(entry, performance.now()));
    try {
      entry.onprogress?.(progress);
    } catch {
      // The callback is the caller's code; a throw there must not disturb the request.
    }
    return true;
  }

  /** Reject everything (connection closed). Does not call `onabandon`: there is no one to tell. */
  rejectAll(error: () => unknown): void {
    const ids = [...(this.byId?.keys() ?? [])];
    if (this.sole !== undefined) ids.unshift(this.sole.id);
    for (const id of ids) this.reject(id, error());
  }

  /**
   * The deadline counted from `now`: the per-request timeout, cut short by the ceiling. A negative or NaN
   * timeout is due at once, as `setTimeout` would have it; Infinity (either) is "never".
   */
  private deadlineOf(entry: Entry, now: number): number {
    const timeoutAt = now + Math.max(entry.timeoutMs, 0);
    entry.ceilingFirst = entry.ceilingAt <= timeoutAt;
    return entry.ceilingFirst ? entry.ceilingAt : timeoutAt;
  }

  private timedOut(entry: Entry): void {
    const ceilingFirst = entry.ceilingFirst;
    const message = ceilingFirst
      ? `${entry.method} exceeded its maximum total time of ${entry.maxTotalTimeoutMs}ms`
      : `${entry.method} timed out after ${entry.timeoutMs}ms without a response`;
    this.abandon(
      entry,
      ceilingFirst ? "ceiling" : "timeout",
      new AgentdError("E_TIMEOUT", message, {
        retryable: true,
        data: { method: entry.method, timeoutMs: entry.timeoutMs, maxTotalTimeoutMs: entry.maxTotalTimeoutMs, ceiling: ceilingFirst },
      }),
    );
  }

  private abandon(entry: Entry, reason: AbandonReason, error: AgentdError): void {
    if (this.take(entry.id) !== entry) return;
    this.listener.requestAbandoned(entry.id, entry.method, reason);
    entry.reject(error);
  }

  private find(id: RequestId): Entry | undefined {
    const sole = this.sole;
    return sole !== undefined && sole.id === id ? sole : this.byId?.get(id);
  }

  private take(id: RequestId): Entry | undefined {
    const entry = this.find(id);
    if (!entry) return undefined;
    if (entry === this.sole) this.sole = undefined;
    else this.byId!.delete(id);
    if (entry.progressToken !== undefined) this.byToken?.delete(entry.progressToken);
    this.deadlines?.remove(entry);
    entry.detachSignal?.();
    return entry;
  }
}

function noop(): void {}

function abortedError(method: string, signal: AbortSignal): AgentdError {
  const reason = signal.reason instanceof Error ? signal.reason.message : signal.reason;
  const detail = typeof reason === "string" && reason ? `: ${reason}` : "";
  return new AgentdError("E_ABORTED", `${method} was aborted by the caller${detail}`, { cause: signal.reason });
}
