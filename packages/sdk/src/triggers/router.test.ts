import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { AgentdError } from "../wire/errors.ts";
import { controlledRuns, record } from "./__fixtures__/trigger-harness.ts";
import { parseConcurrency } from "./concurrency.ts";
import { FakeClock } from "./fake-clock.ts";
import { ManualSource } from "./manual-source.ts";
import { TriggerRouter, type RunFunction } from "./router.ts";
import type { Concurrency, EmitResult } from "./types.ts";

const routers: TriggerRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((r) => r.stop({ graceMs: 0 })));
});

async function setup(concurrency: Concurrency, options: { maxWaiting?: number; run?: RunFunction } = {}) {
  const runs = controlledRuns();
  const logger = memoryLogger();
  const router = new TriggerRouter({ run: options.run ?? runs.run, clock: new FakeClock(0), logger, maxWaiting: options.maxWaiting });
  routers.push(router);
  const manual = new ManualSource();
  router.add({ id: "t", instruction: "do {{run.id}}", concurrency, source: manual });
  const rec = record(router);
  await router.start();
  /** Fire an event with run id `id` and key `key`. */
  const fire = (id: string, key = "k") => manual.fire({ runId: id, key });
  const ids = () => runs.started.map((s) => s.event.runId);
  return { runs, router, fire, ids, logger, ...rec };
}

describe("concurrency: skip", () => {
  test("events during a run are not run now; the newest different state runs once after", async () => {
    const s = await setup("skip");
    const a = s.fire("A");
    await s.waitFor("run-start", 1);
    const b = s.fire("B");
    const c = s.fire("C");
    const d = s.fire("D");
    const again = s.fire("A"); // the running state re-delivered: joins the run, no rerun
    expect(s.ids()).toEqual(["A"]);
    s.runs.started[0]?.finish();
    await s.waitFor("run-start", 2);
    expect(s.ids()).toEqual(["A", "D"]);
    s.runs.started[1]?.finish();
    const results = await Promise.all([a, b, c, d, again]);
    expect(results.map((r) => r.status)).toEqual(["ran", "covered", "covered", "ran", "ran"]);
    expect((results[1] as Extract<EmitResult, { status: "covered" }>).runId).toBe("D");
    expect(s.runs.maxConcurrent).toBe(1);
    expect(s.records.drop.map((x) => [x.event.runId, x.reason])).toEqual([
      ["B", "superseded"],
      ["C", "superseded"],
      ["A", "duplicate"],
    ]);
  });

  test("a re-delivery of the running state alone causes no second run", async () => {
    const s = await setup("skip");
    void s.fire("A");
    await s.waitFor("run-start", 1);
    const dup = s.fire("A");
    s.runs.started[0]?.finish();
    expect(await dup).toMatchObject({ status: "ran", runId: "A" });
    expect(s.router.snapshot()).toMatchObject({ inFlight: 0, waiting: 0 });
    expect(s.ids()).toEqual(["A"]);
  });
});

describe("concurrency: queue", () => {
  test("one at a time, FIFO; consecutive queued events of one key collapse to the latest", async () => {
    const s = await setup("queue");
    void s.fire("A", "k1");
    await s.waitFor("run-start", 1);
    void s.fire("B", "k1");
    void s.fire("C", "k1"); // replaces B (consecutive, same key)
    void s.fire("D", "k2");
    void s.fire("E", "k1"); // not consecutive with C: waits behind D
    void s.fire("F", "k1"); // replaces E
    expect(s.router.snapshot().waiting).toBe(3);
    for (let i = 0; i < 4; i++) {
      await s.waitFor("run-start", i + 1);
      expect(s.runs.current).toBe(1);
      s.runs.started[i]?.finish();
    }
    await s.waitFor("run-end", 4);
    expect(s.ids()).toEqual(["A", "C", "D", "F"]);
    expect(s.runs.maxConcurrent).toBe(1);
  });

  test("a full waiting line pushes out its oldest event, which is reported dropped", async () => {
    const s = await setup("queue", { maxWaiting: 2 });
    void s.fire("A", "a");
    await s.waitFor("run-start", 1);
    const b = s.fire("B", "b");
    void s.fire("C", "c");
    void s.fire("D", "d");
    expect(await b).toEqual({ status: "dropped", reason: "overflow" });
    expect(s.router.snapshot().waiting).toBe(2);
  });
});

describe("concurrency: parallel", () => {
  test("never more than N in flight; the rest wait and all run", async () => {
    const s = await setup({ parallel: 3 });
    const all = Array.from({ length: 10 }, (_, i) => s.fire(`R${i}`, `k${i}`));
    await s.waitFor("run-start", 3);
    expect(s.runs.current).toBe(3);
    expect(s.router.snapshot()).toMatchObject({ inFlight: 3, waiting: 7 });
    // Finish runs one by one; each end lets exactly one waiting event in.
    for (let i = 0; i < 10; i++) {
      s.runs.started[i]?.finish();
      await s.waitFor("run-end", i + 1);
      expect(s.runs.current).toBeLessThanOrEqual(3);
    }
    const results = await Promise.all(all);
    expect(results.every((r) => r.status === "ran")).toBe(true);
    expect(s.runs.maxConcurrent).toBe(3);
    expect(new Set(s.ids()).size).toBe(10);
  });
});

describe("router", () => {
  test("a run that throws is a failed outcome; the router carries on", async () => {
    let n = 0;
    const s = await setup("queue", {
      run: async () => {
        if (n++ === 0) throw new Error("model unreachable");
        return { status: "already-done" };
      },
    });
    expect(await s.fire("A")).toMatchObject({ status: "ran", outcome: { status: "failed", message: "model unreachable" } });
    expect(await s.fire("B")).toMatchObject({ status: "ran", outcome: { status: "already-done" } });
    expect(s.logger.records.some((r) => r.event === "trigger.run-failed" && r.runId === "A")).toBe(true);
  });

  test("run-end carries run id, trigger, duration and outcome; the instruction is rendered", async () => {
    const clock = new FakeClock(0);
    const runs = controlledRuns();
    const router = new TriggerRouter({ run: runs.run, clock });
    routers.push(router);
    const manual = new ManualSource();
    router.add({ id: "daily", instruction: "Report {{trigger.id}} at {{event.at}} as {{run.id}}", source: manual });
    const rec = record(router);
    await router.start();
    void manual.fire({ runId: "RUN-7" });
    await rec.waitFor("run-start");
    clock.advance(1234);
    runs.started[0]?.finish({ status: "ok", message: "done" });
    await rec.waitFor("run-end");
    expect(runs.started[0]?.instruction).toBe("Report daily at 1970-01-01T00:00:00.000Z as RUN-7");
    expect(rec.records["run-end"][0]).toMatchObject({
      runId: "RUN-7",
      triggerId: "daily",
      durationMs: 1234,
      outcome: { status: "ok", message: "done" },
    });
  });

  test("configuration mistakes are one clear E_CONFIG_INVALID line, at add time", () => {
    const router = new TriggerRouter({ run: async () => ({ status: "ok" }) });
    const add = (def: Partial<Parameters<TriggerRouter["add"]>[0]>) => () =>
      router.add({ id: "x", instruction: "go", source: new ManualSource(), ...def });
    expect(add({ instruction: "Triage {{resource.text}}" })).toThrow(
      "trigger 'x': instruction: unknown placeholder {{resource.text}} for a manual trigger; known: {{trigger.id}}, {{event.at}}, {{event.kind}}, {{run.id}}",
    );
    expect(add({ concurrency: { parallel: 0 } })).toThrow('concurrency must be "skip", "queue" or { parallel: N }');
    expect(add({ coalesceMs: -1 })).toThrow("coalesce must be a duration");
    add({})();
    const twice = (() => {
      try {
        add({})();
      } catch (e) {
        return e;
      }
    })();
    expect(AgentdError.isInstance(twice) && twice.code).toBe("E_CONFIG_INVALID");
  });

  test("parseConcurrency reads the config file's form", () => {
    expect(parseConcurrency("skip")).toBe("skip");
    expect(parseConcurrency("queue")).toBe("queue");
    expect(parseConcurrency("parallel:4")).toEqual({ parallel: 4 });
    expect(() => parseConcurrency("parallel:0")).toThrow("expected");
    expect(() => parseConcurrency("fast")).toThrow('concurrency \'fast\': expected "skip", "queue" or "parallel:N"');
  });

  test("a source that fails to start fails start(), and the others are stopped", async () => {
    const router = new TriggerRouter({ run: async () => ({ status: "ok" }), clock: new FakeClock(0) });
    let stopped = 0;
    router.add({
      id: "ok",
      instruction: "x",
      source: { kind: "manual", start: async () => {}, stop: async () => void stopped++ },
    });
    router.add({
      id: "bad",
      instruction: "x",
      source: {
        kind: "manual",
        start: async () => {
          throw new AgentdError("E_CAPABILITY", "nope");
        },
        stop: async () => {},
      },
    });
    await expect(router.start()).rejects.toThrow("nope");
    expect(stopped).toBe(1);
  });

  test("a trigger added after start starts at once; one that cannot start is reported, not thrown", async () => {
    const router = new TriggerRouter({ run: async () => ({ status: "ok" }), clock: new FakeClock(0) });
    routers.push(router);
    const rec = record(router);
    await router.start();
    const late = new ManualSource();
    router.add({ id: "late", instruction: "x", source: late });
    expect(await late.fire({ runId: "L" })).toMatchObject({ status: "ran", runId: "L" });
    router.add({
      id: "broken",
      instruction: "x",
      source: {
        kind: "manual",
        start: async () => {
          throw new AgentdError("E_CAPABILITY", "cannot subscribe");
        },
        stop: async () => {},
      },
    });
    await rec.waitFor("source-error");
    expect(rec.records["source-error"][0]).toMatchObject({ triggerId: "broken" });
    expect(String(rec.records["source-error"][0]?.error)).toContain("cannot subscribe");
  });
});
