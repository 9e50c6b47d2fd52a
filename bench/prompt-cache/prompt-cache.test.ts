import { describe, expect, test } from "bun:test";
import { cacheRun } from "./cache-run.ts";
import { renderTable } from "./run.ts";

describe("prompt-cache bench, smoke", () => {
  test("anthropic: caching on reads most of the input from the cache; off reads none", async () => {
    const [off, on] = [await cacheRun("anthropic", false), await cacheRun("anthropic", true)];
    expect([off.requests, on.requests]).toEqual([10, 10]);
    expect(off.usage.cacheReadTokens ?? 0).toBe(0);
    expect(on.usage.cacheReadTokens).toBeGreaterThan(on.usage.inputTokens / 2);
    expect(renderTable([{ dialect: "anthropic", caching: true, input: 10, read: 8, write: 2, billed: 5 }])).toContain(
      "| anthropic | on | 10 | 8 | 2 | 5 |",
    );
  });
});
