import { describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { Budget, checkLimits, costOf } from "./budget.ts";
import { addUsage, emptyUsage } from "../model/language-model.ts";

describe("the usage split: cache reads and writes, reasoning", () => {
  test("addUsage sums the details that either side has, and leaves out those neither has", () => {
    expect(addUsage(emptyUsage(), emptyUsage())).toEqual(emptyUsage());
    expect(
      addUsage(
        { inputTokens: 100, outputTokens: 10, totalTokens: 110, cacheReadTokens: 80 },
        { inputTokens: 50, outputTokens: 20, totalTokens: 70, cacheWriteTokens: 40, reasoningTokens: 15 },
      ),
    ).toEqual({ inputTokens: 150, outputTokens: 30, totalTokens: 180, cacheReadTokens: 80, cacheWriteTokens: 40, reasoningTokens: 15 });
  });

  test("costOf prices each part at its own rate, falling back to the plain input/output price", () => {
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 1_000_000,
      totalTokens: 2_000_000,
      cacheReadTokens: 600_000,
      cacheWriteTokens: 200_000,
      reasoningTokens: 500_000,
    };
    const plain = { inputPerMTokUsd: 3, outputPerMTokUsd: 15 };
    expect(costOf(usage, plain)).toBeCloseTo(18, 9);
    const split = { ...plain, cacheReadPerMTokUsd: 0.3, cacheWritePerMTokUsd: 3.75, reasoningPerMTokUsd: 10 };
    // 0.2 M uncached × 3 + 0.6 M read × 0.3 + 0.2 M written × 3.75 + 0.5 M answer × 15 + 0.5 M reasoning × 10
    expect(costOf(usage, split)).toBeCloseTo(0.6 + 0.18 + 0.75 + 7.5 + 5, 9);
    // Details larger than their total (a sloppy report) never make a negative cost.
    expect(
      costOf({ inputTokens: 10, outputTokens: 0, totalTokens: 10, cacheReadTokens: 50, cacheWriteTokens: 50 }, split),
    ).toBeGreaterThanOrEqual(0);
  });

  test("the budget keeps the split, counts reasoning in the token budget, and trips cost at the split price", () => {
    const budget = new Budget(
      { maxTokens: 1000, maxCostUsd: 0.01 },
      { inputPerMTokUsd: 10, outputPerMTokUsd: 10, cacheReadPerMTokUsd: 1 },
      () => {},
    );
    expect(
      budget.add({ inputTokens: 500, outputTokens: 100, totalTokens: 600, cacheReadTokens: 400, reasoningTokens: 80 }),
    ).toBeUndefined();
    expect(budget.usage).toEqual({ inputTokens: 500, outputTokens: 100, totalTokens: 600, cacheReadTokens: 400, reasoningTokens: 80 });
    expect(budget.costUsd).toBeCloseTo((100 * 10 + 400 * 1 + 100 * 10) / 1e6, 12);
    const trip = budget.add({ inputTokens: 0, outputTokens: 500, totalTokens: 500, reasoningTokens: 450 });
    expect(trip?.code).toBe("E_BUDGET_TOKENS");
  });

  test("a negative split price is a one-line configuration error", () => {
    let error: unknown;
    try {
      checkLimits({}, { inputPerMTokUsd: 1, outputPerMTokUsd: 1, cacheWritePerMTokUsd: -2 });
    } catch (e) {
      error = e;
    }
    expect(
      AgentdError.isInstance(error) && error.code === "E_CONFIG_INVALID" && error.message.includes("prices.cacheWritePerMTokUsd"),
    ).toBe(true);
  });
});
