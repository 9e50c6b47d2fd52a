/**
 * Callers waiting for a connection: a call made while the managed client reconnects waits here, bounded
 * by its own timeout and abort signal, instead of failing at once.
 */
import { setLongTimeout } from "../../../_internal/timer.ts";
import { AgentdError } from "../../../wire/errors.ts";

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A set of waiters released together with a value or an error. */
export class ReadyGate<T> {
  private readonly waiters = new Set<Waiter<T>>();

  /** How many callers wait now. */
  get size(): number {
    return this.waiters.size;
  }

  /** Wait for `open`/`fail`, at most `timeoutMs`, or until `signal` aborts. */
  wait(what: string, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(new AgentdError("E_ABORTED", `${what}: aborted while waiting for the connection`));
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        cancelTimer();
        signal?.removeEventListener("abort", onAbort);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter<T> = {
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      };
      const onAbort = () => waiter.reject(new AgentdError("E_ABORTED", `${what}: aborted while waiting for the connection`));
      const cancelTimer = setLongTimeout(
        () =>
          waiter.reject(new AgentdError("E_TIMEOUT", `${what}: the connection was not back within ${timeoutMs} ms`, { retryable: true })),
        timeoutMs,
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  /** Release every waiter with `value`. */
  open(value: T): void {
    for (const w of [...this.waiters]) w.resolve(value);
  }

  /** Release every waiter with `error`. */
  fail(error: unknown): void {
    for (const w of [...this.waiters]) w.reject(error);
  }
}
