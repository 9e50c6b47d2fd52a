import { describe, expect, test } from "bun:test";
import { backoffDelay } from "./backoff.ts";

describe("backoffDelay", () => {
  const policy = { initialDelayMs: 100, maxDelayMs: 1_000 };
  test("grows by the factor up to the cap; none is the step itself", () => {
    expect([0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, { ...policy, jitter: "none" }))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffDelay(2, { ...policy, factor: 3, jitter: "none" })).toBe(900);
  });
  test("full jitter spans [0, step); equal jitter [step/2, step)", () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(0);
    expect(backoffDelay(1, policy, () => 0.999)).toBe(199);
    expect(backoffDelay(1, { ...policy, jitter: "equal" }, () => 0)).toBe(100);
    expect(backoffDelay(1, { ...policy, jitter: "equal" }, () => 0.5)).toBe(150);
  });
  test("huge attempt numbers and a zero first step stay finite", () => {
    expect(backoffDelay(5_000, policy, () => 0.5)).toBe(500);
    expect(backoffDelay(5_000, { initialDelayMs: 0, maxDelayMs: 10, jitter: "none" })).toBe(0);
  });
});
