import { describe, expect, test } from "bun:test";
import { jsonTooDeep, MAX_JSON_DEPTH } from "./json-depth.ts";

/** The nesting depth of a parsed value, walked without recursion (the oracle). */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

describe("jsonTooDeep", () => {
  test("counts arrays and objects outside strings, up to the limit and one past it", () => {
    const arrays = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    expect(jsonTooDeep(arrays(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(arrays(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep(`${'{"a":'.repeat(4)}1${"}".repeat(4)}`, 3)).toBe(true);
    expect(jsonTooDeep(`${'{"a":'.repeat(3)}1${"}".repeat(3)}`, 3)).toBe(false);
  });

  test("brackets inside strings, escaped quotes and backslashes do not count", () => {
    const inString = JSON.stringify({ s: "[".repeat(5000), t: 'a\\"[[[[', u: "\\", v: [[["x"]]] });
    expect(jsonTooDeep(inString, 4)).toBe(false);
    expect(jsonTooDeep(inString, 3)).toBe(true);
  });

  test("agrees with the depth of the parsed value on generated texts", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // One deep spine with short side branches, so the values stay small.
    const gen = (d: number, spine: boolean): unknown => {
      if (d > 60 || (!spine && rand() < 0.6) || (spine && rand() < 0.03)) return rand() < 0.5 ? `s"\\[{${d}` : d;
      const side = gen(d + 1, false);
      const next = gen(d + 1, spine);
      return rand() < 0.5 ? [side, next] : { 'k\\"[': side, n: next };
    };
    for (let i = 0; i < 300; i++) {
      const value = gen(0, true);
      const text = JSON.stringify(value);
      const depth = depthOf(value);
      for (const max of [Math.max(0, depth - 1), depth]) expect(jsonTooDeep(text, max)).toBe(depth > max && text.length > 2 * max + 1);
    }
  });

  test("a 300 KB text nested 50,000 levels is refused at once, without parsing it", () => {
    const text = `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`;
    const started = performance.now();
    expect(jsonTooDeep(text)).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
