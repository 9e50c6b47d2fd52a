import { describe, expect, test } from "bun:test";
import { DEFAULT_RECONNECT, reconnectDelay, SERVER_RETRY_BOUNDS } from "./options.ts";

describe("reconnectDelay", () => {
  const policy = { initialDelayMs: 100, maxDelayMs: 1000, growFactor: 2, maxRetries: 5 };

  test("grows by the factor, with equal jitter between half and the whole step", () => {
    expect(reconnectDelay(0, policy, undefined, () => 0)).toBe(50);
    expect(reconnectDelay(0, policy, undefined, () => 1)).toBe(100);
    expect(reconnectDelay(2, policy, undefined, () => 0)).toBe(200);
    expect(reconnectDelay(2, policy, undefined, () => 1)).toBe(400);
  });

  test("is bounded by maxDelayMs", () => {
    expect(reconnectDelay(20, policy, undefined, () => 1)).toBe(1000);
    expect(reconnectDelay(20, policy, undefined, () => 0)).toBe(500);
  });

  test("the server's retry value wins over the backoff, kept within 250 ms .. 60 s", () => {
    expect(reconnectDelay(4, policy, 3000, () => 0.5)).toBe(3000);
    expect(reconnectDelay(0, policy, 0, () => 0.5)).toBe(SERVER_RETRY_BOUNDS.minMs); // `retry: 0` is no loop
    expect(SERVER_RETRY_BOUNDS.minMs).toBe(250);
    expect(reconnectDelay(0, policy, 10 * 86_400_000, () => 0.5)).toBe(60_000);
  });

  test("defaults are sane", () => {
    expect(DEFAULT_RECONNECT.initialDelayMs).toBeLessThanOrEqual(DEFAULT_RECONNECT.maxDelayMs);
    expect(DEFAULT_RECONNECT.growFactor).toBeGreaterThan(1);
  });
});
