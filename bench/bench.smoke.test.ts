/**
 * Smoke test of the benchmarks (not a timed test): each benchmark runs in its tiny configuration and must
 * produce figures whose every run is a positive number, with ratios computed where a peer or floor exists.
 * No timing is asserted.
 */
import { describe, expect, test } from "bun:test";
import type { BenchResult } from "./lib/figures.ts";
import type { Curve } from "./lib/growth.ts";
import { BENCHES } from "./run.ts";

/** The growth curves, in order. */
const GROWTH_CURVES = [
  "runs-rss",
  "runs-lag",
  "subs-rss",
  "subs-latency",
  "servers-startup",
  "subagents-latency",
  "subagents-rss",
  "parallel-tools",
  "http-idle-sessions",
  "http-rps-connections",
];

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

/** Every curve measured at ≥ 4 sizes, every point a finite non-negative number, growth fitted where it can be. */
function expectCurves(curves: Curve[] | undefined, ids: string[]): void {
  expect((curves ?? []).map((c) => c.id)).toEqual(ids);
  for (const c of curves ?? []) {
    for (const s of c.series) {
      expect(s.points.length).toBeGreaterThanOrEqual(4);
      for (const p of s.points) {
        expect(Number.isFinite(p.y)).toBe(true);
        expect(p.y).toBeGreaterThanOrEqual(0);
      }
      if (s.points.filter((p) => p.y > 0).length >= 2) expect(s.growth?.kind).toBeString();
    }
    if (c.target) expect(c.target.actual).toBeNumber();
  }
}

describe("benchmarks in their tiny configuration", () => {
  test("codec", async () => expectPositive(await BENCHES.codec("tiny", () => {}), 12), 60_000);
  test("stdio", async () => expectPositive(await BENCHES.stdio("tiny", () => {}), 18), 60_000);
  test("http", async () => expectPositive(await BENCHES.http("tiny", () => {}), 14), 60_000);
  test("startup", async () => expectPositive(await BENCHES.startup("tiny", () => {}), 12), 180_000);
  test("growth", async () => {
    const r = await BENCHES.growth("tiny", () => {});
    expectCurves(r.curves, GROWTH_CURVES);
  }, 300_000);
  test("tls", async () => expectPositive(await BENCHES.tls("tiny", () => {}), 4), 120_000);
  test("loop", async () => expectPositive(await BENCHES.loop("tiny", () => {}), 16), 180_000);
  test("tasks", async () => expectPositive(await BENCHES.tasks("tiny", () => {}), 3), 120_000);
  test("approvals", async () => expectPositive(await BENCHES.approvals("tiny", () => {}), 4), 120_000);
});
