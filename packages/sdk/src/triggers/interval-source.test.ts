import { afterEach, describe, expect, test } from "bun:test";
import { controlledRuns, record } from "./__fixtures__/trigger-harness.ts";
import { FakeClock } from "./fake-clock.ts";
import { IntervalSource } from "./interval-source.ts";
import { TriggerRouter, type RunFunction } from "./router.ts";
import { intervalRunId } from "./run-id.ts";

const routers: TriggerRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((r) => r.stop({ graceMs: 0 })));
});

function setup(run: RunFunction, source: IntervalSource, clock = new FakeClock("2026-01-01T00:00:00Z")) {
  // parallel:10 on purpose: the interval itself must keep runs from overlapping.
  const router = new TriggerRouter({ run, clock });
  routers.push(router);
  router.add({ id: "poll", instruction: "Check the queue at {{tick}}", concurrency: { parallel: 10 }, source });
  return { router, clock, ...record(router) };
}

describe("IntervalSource", () => {
  test("D=0, maxRuns=5: exactly 5 runs, each starting after the previous ended", async () => {
    let current = 0;
    let overlap = 0;
    const order: string[] = [];
    const run: RunFunction = async (event) => {
      current++;
      if (current > 1) overlap++;
      order.push(`start ${event.data.seq}`);
      await Promise.resolve(); // the run yields: another emit could sneak in here if the source did not wait
      await Promise.resolve();
      order.push(`end ${event.data.seq}`);
      current--;
      return { status: "ok" };
    };
    const s = setup(run, new IntervalSource({ everyMs: 0, maxRuns: 5, instance: "i1" }));
    await s.router.start();
    await s.waitFor("source-end");
    expect(overlap).toBe(0);
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3", "start 4", "end 4", "start 5", "end 5"]);
    const ids = s.records["run-end"].map((r) => r.runId);
    expect(ids).toEqual([1, 2, 3, 4, 5].map((seq) => intervalRunId("poll", "i1", seq)));
    expect(new Set(ids).size).toBe(5);
  });

  test("D>0: the next run starts D after the previous run ENDED (interval between runs)", async () => {
    const runs = controlledRuns();
    const s = setup(runs.run, new IntervalSource({ everyMs: 60_000, maxRuns: 3, instance: "i2" }));
    const t0 = s.clock.now();
    const startedAt: number[] = [];
    s.router.on("run-start", () => startedAt.push(s.clock.now() - t0));
    await s.router.start();
    for (let i = 0; i < 3; i++) {
      await s.waitFor("run-start", i + 1);
      s.clock.advance(5_000 * (i + 1)); // runs take 5 s, 10 s, 15 s
      runs.started[i]?.finish();
      if (i < 2) {
        await s.clock.whenPending();
        expect(s.clock.nextAt).toBe(s.clock.now() + 60_000);
        s.clock.advance(59_999);
        expect(runs.started.length).toBe(i + 1); // not yet
        s.clock.advance(1);
      }
    }
    await s.waitFor("source-end");
    expect(startedAt).toEqual([0, 65_000, 135_000]);
    expect(runs.maxConcurrent).toBe(1);
    expect(runs.started[1]?.instruction).toBe("Check the queue at 2026-01-01T00:01:05.000Z");
  });

  test("the default instance differs between two sources, so run ids differ across restarts", async () => {
    const a: string[] = [];
    const run: RunFunction = async (e) => {
      a.push(e.runId);
      return { status: "ok" };
    };
    for (let i = 0; i < 2; i++) {
      const s = setup(run, new IntervalSource({ everyMs: 0, maxRuns: 1 }));
      await s.router.start();
      await s.waitFor("source-end");
    }
    expect(a.length).toBe(2);
    expect(a[0]).not.toBe(a[1]);
    expect(a[0]).toMatch(/^int-[0-9a-f]{16}$/);
  });

  test("stop ends the loop while it waits for the next run", async () => {
    const runs = controlledRuns();
    const s = setup(runs.run, new IntervalSource({ everyMs: 1000 }));
    await s.router.start();
    await s.waitFor("run-start");
    runs.started[0]?.finish();
    await s.clock.whenPending();
    await s.router.stop({ graceMs: 0 });
    expect(s.clock.pending).toBe(0);
    expect(s.records["source-end"].length).toBe(1);
    expect(runs.started.length).toBe(1);
  });

  test("bad options are configuration errors", () => {
    expect(() => new IntervalSource({ everyMs: -1 })).toThrow("interval: every must be a duration ≥ 0");
    expect(() => new IntervalSource({ everyMs: 0, maxRuns: 0 })).toThrow("maxRuns");
  });
});
