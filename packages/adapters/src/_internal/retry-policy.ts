/**
 * The retry policy, pure: which failures are transient, how long to wait before the next attempt.
 * Exponential backoff with full jitter (a random wait in [0, ceiling)), unless the server said how long
 * to wait (`retry-after-ms`, `Retry-After` in seconds or as an HTTP date), which is honoured exactly.
 */
import { backoffDelay } from "@agentd/sdk/model";

/** HTTP statuses worth another attempt: request timeout, conflict (lock contention), rate limit, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "ConnectionClosed",
  "ConnectionRefused",
]);

/**
 * A connection-level failure (reset, refused, closed mid-body). `fetch` reports these as a `TypeError`
 * (Bun and undici both), with a `code` on the error or its cause.
 */
export function isNetworkError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === "AbortError" || e.name === "TimeoutError") return false;
  const code = (e as { code?: unknown }).code ?? (e.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  return e instanceof TypeError && /fetch|network|socket|connect|closed/i.test(e.message);
}

/**
 * The wait the server asked for, in ms, or undefined. `retry-after-ms` (OpenAI, Anthropic) wins over
 * `Retry-After`, which is either delay-seconds or an HTTP date (RFC 9110 §10.2.3).
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const ra = headers.get("retry-after");
  if (ra === null || ra.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Number(ra) * 1000;
  // An HTTP date names its day and month; without letters `Date.parse` would read "-5" as a year.
  const at = /[a-z]/i.test(ra) ? Date.parse(ra) : Number.NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** What to do after a failed attempt. */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: "exhausted" | "too-long" };

/**
 * Decide whether and when to try again after a retryable failure on attempt `retry` (0-based count of
 * retries already made). A server-requested wait longer than `capMs` is not shortened (that would only
 * earn another 429): the caller gives up and reports the wait instead.
 */
export function decideRetry(
  retry: number,
  maxRetries: number,
  retryAfterMs: number | undefined,
  baseMs: number,
  capMs: number,
  random: () => number,
): RetryDecision {
  if (retry >= maxRetries) return { retry: false, reason: "exhausted" };
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > capMs) return { retry: false, reason: "too-long" };
    return { retry: true, delayMs: retryAfterMs };
  }
  return { retry: true, delayMs: backoffDelay(retry, { initialDelayMs: baseMs, maxDelayMs: capMs, jitter: "full" }, random) };
}
