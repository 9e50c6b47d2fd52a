import { describe, expect, test } from "bun:test";
import { DEFAULT_RECONNECT_POLICY, reconnectBackoff, reconnectPolicy, sleep } from "./backoff.ts";

describe("reconnect backoff", () => {
  const policy = reconnectPolicy({ initialDelayMs: 100, maxDelayMs: 1000 });

  test("full jitter under a doubling cap that stops at maxDelayMs", () => {
    const top = (n: number) => reconnectBackoff(n, policy, () => 0.999999);
    expect([0, 1, 2, 3, 4, 5, 60].map(top)).toEqual([99, 199, 399, 799, 999, 999, 999]);
    expect(reconnectBackoff(3, policy, () => 0)).toBe(0);
    expect(reconnectBackoff(2, policy, () => 0.5)).toBe(200);
  });

  test("defaults: 250 ms first cap, 30 s ceiling, never give up", () => {
    expect(DEFAULT_RECONNECT_POLICY).toEqual({ initialDelayMs: 250, maxDelayMs: 30_000, maxAttempts: Number.POSITIVE_INFINITY });
    expect(reconnectPolicy({ maxAttempts: undefined as unknown as number })).toEqual(DEFAULT_RECONNECT_POLICY);
  });

  test("nonsense is refused in one line", () => {
    expect(() => reconnectPolicy({ initialDelayMs: 500, maxDelayMs: 100 })).toThrow("initialDelayMs <= maxDelayMs");
    expect(() => reconnectPolicy({ maxAttempts: 0 })).toThrow("maxAttempts >= 1");
  });

  test("sleep ends at once when aborted", async () => {
    const ctrl = new AbortController();
    const slept = sleep(60_000, ctrl.signal);
    ctrl.abort();
    await slept;
  });
});
