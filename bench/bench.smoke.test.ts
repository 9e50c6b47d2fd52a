/**
 * Smoke test of the benchmarks (not a timed test): each benchmark runs in its tiny configuration and must
 * produce figures whose every run is a positive number, with ratios computed where a peer or floor exists.
 * No timing is asserted.
 */
import { describe, expect, test } from "bun:test";
import type { BenchResult } from "./lib/figures.ts";
import { BENCHES } from "./run.ts";

function expectPositive(r: BenchResult, minFigures: number): void {
  expect(r.figures.length).toBeGreaterThanOrEqual(minFigures);
  for (const f of r.figures) {
    expect(f.runs.length).toBeGreaterThan(0);
    for (const v of f.runs) {
      expect(Number.isFinite(v)).toBe(true);
      // A tool server's share of a run can round to a tiny number, never to zero or below.
      expect(v).toBeGreaterThan(0);
    }
    // The tiny configuration may leave a peer out; where both were measured, the ratio must exist.
    const has = (id: string | undefined) => id !== undefined && r.figures.some((x) => x.id === id);
    if (has(f.peer)) expect(f.vsPeer).toBeGreaterThan(0);
    if (has(f.floor)) expect(f.vsFloor).toBeGreaterThan(0);
  }
}

describe("benchmarks in their tiny configuration", () => {
  test("codec", async () => expectPositive(await BENCHES.codec("tiny", () => {}), 12), 60_000);
  test("stdio", async () => expectPositive(await BENCHES.stdio("tiny", () => {}), 18), 60_000);
  test("http", async () => expectPositive(await BENCHES.http("tiny", () => {}), 14), 60_000);
  test("startup", async () => expectPositive(await BENCHES.startup("tiny", () => {}), 10), 60_000);
  test("loop", async () => expectPositive(await BENCHES.loop("tiny", () => {}), 12), 60_000);
  test("tasks", async () => expectPositive(await BENCHES.tasks("tiny", () => {}), 3), 60_000);
});
