import { describe, expect, test } from "bun:test";
import { backoffDelay as sharedBackoff } from "@agentd/sdk/model";
import { decideRetry, isNetworkError, isRetryableStatus, parseRetryAfter } from "./retry-policy.ts";

const h = (init: Record<string, string>) => new Headers(init);

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  test("delay-seconds, fractional seconds, zero", () => {
    expect(parseRetryAfter(h({ "retry-after": "3" }), now)).toBe(3000);
    expect(parseRetryAfter(h({ "retry-after": " 1.5 " }), now)).toBe(1500);
    expect(parseRetryAfter(h({ "retry-after": "0" }), now)).toBe(0);
  });
  test("HTTP date, in the future or already past", () => {
    expect(parseRetryAfter(h({ "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }), now)).toBe(7000);
    expect(parseRetryAfter(h({ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }), now)).toBe(0);
  });
  test("retry-after-ms wins over retry-after", () => {
    expect(parseRetryAfter(h({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
  });
  test("absent, garbage and negative values are ignored", () => {
    expect(parseRetryAfter(h({}), now)).toBeUndefined();
    expect(parseRetryAfter(h({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(h({ "retry-after": "-5" }), now)).toBeUndefined();
    expect(parseRetryAfter(h({ "retry-after-ms": "nope", "retry-after": "2" }), now)).toBe(2000);
  });
});

/** The adapters' retries use the SDK's one backoff helper with full jitter. */
const backoffDelay = (retry: number, baseMs: number, capMs: number, random: () => number) =>
  sharedBackoff(retry, { initialDelayMs: baseMs, maxDelayMs: capMs, jitter: "full" }, random);

describe("backoffDelay (full jitter)", () => {
  test("uniform in [0, min(cap, base·2^n))", () => {
    expect(backoffDelay(0, 500, 30_000, () => 0)).toBe(0);
    expect(backoffDelay(0, 500, 30_000, () => 0.999999)).toBe(499);
    expect(backoffDelay(3, 500, 30_000, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, 500, 30_000, () => 0.999999)).toBe(29_999);
  });
  test("many draws stay within bounds and spread out", () => {
    const draws = Array.from({ length: 2000 }, () => backoffDelay(2, 100, 10_000, Math.random));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThan(400);
    expect(new Set(draws).size).toBeGreaterThan(100);
  });
});

describe("decideRetry", () => {
  test("retries until maxRetries, then exhausted", () => {
    expect(decideRetry(0, 2, undefined, 100, 1000, () => 0.5)).toEqual({ retry: true, delayMs: 50 });
    expect(decideRetry(1, 2, undefined, 100, 1000, () => 0.5)).toEqual({ retry: true, delayMs: 100 });
    expect(decideRetry(2, 2, undefined, 100, 1000, () => 0.5)).toEqual({ retry: false, reason: "exhausted" });
    expect(decideRetry(0, 0, undefined, 100, 1000, () => 0.5)).toEqual({ retry: false, reason: "exhausted" });
  });
  test("a server-requested wait is honoured exactly, unless above the cap", () => {
    expect(decideRetry(0, 2, 1234, 100, 5000, () => 0)).toEqual({ retry: true, delayMs: 1234 });
    expect(decideRetry(0, 2, 9000, 100, 5000, () => 0)).toEqual({ retry: false, reason: "too-long" });
  });
});

describe("classification", () => {
  test("retryable statuses", () => {
    const retryable = [408, 409, 429, 500, 502, 503, 504, 529];
    const final = [400, 401, 403, 404, 413, 422];
    for (const s of retryable) expect(isRetryableStatus(s)).toBe(true);
    for (const s of final) expect(isRetryableStatus(s)).toBe(false);
  });
  test("network errors: fetch TypeErrors and socket codes, not aborts", () => {
    const reset = Object.assign(new TypeError("The socket connection was closed unexpectedly"), { code: "ECONNRESET" });
    const undici = new TypeError("fetch failed", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
    expect(isNetworkError(reset)).toBe(true);
    expect(isNetworkError(undici)).toBe(true);
    expect(isNetworkError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isNetworkError(new DOMException("aborted", "AbortError"))).toBe(false);
    expect(isNetworkError(new DOMException("timeout", "TimeoutError"))).toBe(false);
    expect(isNetworkError(new Error("bad json"))).toBe(false);
    expect(isNetworkError(new TypeError("x is not a function"))).toBe(false);
    expect(isNetworkError("ECONNRESET")).toBe(false);
  });
});
