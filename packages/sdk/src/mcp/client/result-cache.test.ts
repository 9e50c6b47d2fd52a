import { describe, expect, test } from "bun:test";
import { ResultCache } from "./result-cache.ts";

describe("the result cache (ttlMs, cacheScope)", () => {
  test("fresh for ttlMs after receipt, keyed by method and params without _meta; 0, negative or absent ttl is not kept", () => {
    let now = 1_000;
    const cache = new ResultCache(() => now);
    cache.put("tools/list", { _meta: { a: 1 } }, { resultType: "complete", tools: [], ttlMs: 500, cacheScope: "public" });
    expect(cache.get("tools/list", { _meta: { b: 2 } })).toMatchObject({ tools: [] });
    expect(cache.get("tools/list", { cursor: "x" })).toBeUndefined();
    now = 1_499;
    expect(cache.get("tools/list", undefined)).toBeDefined();
    now = 1_500;
    expect(cache.get("tools/list", undefined)).toBeUndefined();
    for (const ttlMs of [0, -5, undefined]) cache.put("prompts/list", {}, { prompts: [], ttlMs });
    expect(cache.size).toBe(0);
  });

  test("input-required results, retries and methods outside the list are never cached; updates invalidate one read", () => {
    const cache = new ResultCache(() => 0);
    cache.put("resources/read", { uri: "a", requestState: "s" }, { contents: [], ttlMs: 10 });
    cache.put("resources/read", { uri: "a" }, { resultType: "input_required", ttlMs: 10 });
    cache.put("tools/call", { name: "t" }, { content: [], ttlMs: 10 });
    expect(cache.size).toBe(0);
    cache.put("resources/read", { uri: "a" }, { contents: [{ uri: "a" }], ttlMs: 10 });
    cache.put("resources/read", { uri: "b" }, { contents: [{ uri: "b" }], ttlMs: 10 });
    cache.invalidate("resources/read", "a");
    expect(cache.get("resources/read", { uri: "a" })).toBeUndefined();
    expect(cache.get("resources/read", { uri: "b" })).toBeDefined();
    cache.invalidate("resources/read");
    expect(cache.size).toBe(0);
  });
});
