/**
 * The requests a fake gateway received, as a test reads them: each recorded with its credentials redacted,
 * and waits for "at least N requests" that settle as soon as the Nth arrives (tests wait for events, never
 * sleep) or fail with a message saying how many came.
 */
import type { RecordedRequest } from "./types.ts";

/** Headers whose values are secrets: recorded as "[redacted]". */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "cookie",
]);

/** `headers` with each secret's value replaced by "[redacted]". */
export function redact(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name) ? "[redacted]" : value]));
}

/** The recorded requests and the tests waiting for them. */
export class RequestLog {
  /** Every request in arrival order (refused ones too). */
  readonly requests: RecordedRequest[] = [];
  private readonly waiters = new Set<{ count: number; settle: (error?: Error) => void }>();
  private closed = false;

  /** Record a request (once) and wake the waits it completes. */
  record(entry: RecordedRequest): void {
    if (this.requests.includes(entry)) return;
    this.requests.push(entry);
    for (const waiter of this.waiters) if (this.requests.length >= waiter.count) waiter.settle();
  }

  /** Resolve once `count` requests have arrived; reject after `timeoutMs` or when the gateway closes first. */
  waitFor(count: number, timeoutMs: number): Promise<void> {
    const { requests, waiters } = this;
    if (requests.length >= count) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error(`fake gateway: closed with ${requests.length} of ${count} requests`));
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        count,
        settle(error?: Error) {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      const timer = setTimeout(
        () => waiter.settle(new Error(`fake gateway: waited ${timeoutMs} ms for ${count} requests, got ${requests.length}`)),
        timeoutMs,
      );
      waiters.add(waiter);
    });
  }

  /** Fail every wait still open. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters)
      waiter.settle(new Error(`fake gateway: closed with ${this.requests.length} of ${waiter.count} requests`));
  }
}
