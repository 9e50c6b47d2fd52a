/** The growth fit names constant, sub-linear, linear and worse-than-linear series correctly. */
import { expect, test } from "bun:test";
import { fitGrowth } from "./growth.ts";

const sizes = [1, 10, 100, 1000];
const at = (f: (x: number) => number) => sizes.map((x) => ({ x, y: f(x) }));

test("a flat series with noise, or a falling one, is constant", () => {
  expect(fitGrowth(at((x) => 5 + (x % 3) * 0.4))?.kind).toBe("constant");
  expect(fitGrowth(at((x) => 50 / Math.log10(10 * x)))?.kind).toBe("constant");
});

test("a series proportional to the size is linear, with its slope per unit", () => {
  // A large fixed part (a process's start-up memory) does not hide the linear part.
  expect(fitGrowth(at((x) => 40 + 0.05 * x))?.kind).toBe("linear");
  const pure = fitGrowth(at((x) => 0.05 * x));
  expect(pure?.kind).toBe("linear");
  expect(pure?.slope).toBeCloseTo(0.05, 5);
});

test("a quadratic series is worse than linear", () => {
  expect(fitGrowth(at((x) => x * x))?.kind).toBe("worse than linear");
});

test("a square-root series is sub-linear", () => {
  expect(fitGrowth(at((x) => Math.sqrt(x)))?.kind).toBe("sub-linear");
});

test("fewer than two usable sizes give no fit", () => {
  expect(fitGrowth([{ x: 10, y: 1 }])).toBeUndefined();
  expect(
    fitGrowth([
      { x: 10, y: 1 },
      { x: 10, y: 2 },
      { x: 100, y: 0 },
    ]),
  ).toBeUndefined();
});

test("a noisy series whose late values fall back is constant, not sub-linear", () => {
  expect(
    fitGrowth([
      { x: 1, y: 100 },
      { x: 10, y: 160 },
      { x: 100, y: 120 },
      { x: 1000, y: 110 },
    ])?.kind,
  ).toBe("constant");
});
