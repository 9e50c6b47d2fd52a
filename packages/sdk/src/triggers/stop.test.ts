import { describe, expect, test } from "bun:test";
import { controlledRuns, record } from "./__fixtures__/trigger-harness.ts";
import { FakeClock } from "./fake-clock.ts";
import { ManualSource } from "./manual-source.ts";
import { TriggerRouter } from "./router.ts";
import type { Emit, EventSource } from "./types.ts";

/** A source that keeps its emit function, to try emitting after stop. */
class HeldSource implements EventSource {
  readonly kind = "manual" as const;
  emit: Emit | undefined;
  stopped = false;
  async start(context: { emit: Emit }): Promise<void> {
    this.emit = context.emit;
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
}

async function setup() {
  const clock = new FakeClock(0);
  const runs = controlledRuns();
  const router = new TriggerRouter({ run: runs.run, clock });
  const manual = new ManualSource();
  router.add({ id: "t", instruction: "x", concurrency: { parallel: 2 }, source: manual });
  const rec = record(router);
  await router.start();
  return { clock, runs, router, manual, ...rec };
}

describe("stop({ graceMs })", () => {
  test("a run that finishes within the grace is not aborted", async () => {
    const s = await setup();
    const result = s.manual.fire({ runId: "A" });
    await s.waitFor("run-start");
    const stopped = s.router.stop({ graceMs: 1000 });
    await s.clock.whenPending(); // the grace timer
    s.clock.advance(999);
    s.runs.started[0]?.finish({ status: "ok" });
    await stopped;
    expect(s.runs.started[0]?.signal.aborted).toBe(false);
    expect(await result).toMatchObject({ status: "ran", outcome: { status: "ok" } });
    expect(s.clock.pending).toBe(0); // the grace timer was cleared
  });

  test("a run still going at the end of the grace is aborted through its AbortSignal", async () => {
    const s = await setup();
    const fast = s.manual.fire({ runId: "fast" });
    const slow = s.manual.fire({ runId: "slow" });
    await s.waitFor("run-start", 2);
    let settled = false;
    const stopped = s.router.stop({ graceMs: 1000 }).then(() => (settled = true));
    await s.clock.whenPending();
    s.runs.started[0]?.finish();
    await fast;
    s.clock.advance(999);
    expect(s.runs.started[1]?.signal.aborted).toBe(false);
    expect(settled).toBe(false);
    s.clock.advance(1);
    await stopped;
    expect(s.runs.started[1]?.signal.aborted).toBe(true);
    expect(await slow).toMatchObject({ status: "ran", outcome: { status: "aborted" } });
    expect(s.records["run-end"].map((r) => [r.runId, r.outcome.status])).toEqual([
      ["fast", "ok"],
      ["slow", "aborted"],
    ]);
  });

  test("after stop no event is accepted, and waiting ones are dropped", async () => {
    const clock = new FakeClock(0);
    const runs = controlledRuns();
    const router = new TriggerRouter({ run: runs.run, clock });
    const held = new HeldSource();
    router.add({ id: "h", instruction: "x", concurrency: "queue", source: held });
    const rec = record(router);
    await router.start();
    const emit = held.emit as Emit;
    const event = (runId: string) => ({ triggerId: "h", kind: "manual" as const, key: runId, at: new Date(0), data: {}, runId });
    void emit(event("running"));
    await rec.waitFor("run-start");
    const waiting = emit(event("waiting"));
    const stopped = router.stop({ graceMs: 0 });
    expect(await waiting).toEqual({ status: "dropped", reason: "stopped" });
    await stopped;
    expect(held.stopped).toBe(true);
    expect(await emit(event("late"))).toEqual({ status: "dropped", reason: "stopped" });
    expect(runs.started.map((r) => r.event.runId)).toEqual(["running"]);
    expect(runs.started[0]?.signal.aborted).toBe(true); // grace 0: aborted at once
    expect(rec.records.fire.map((f) => f.event.runId)).toEqual(["running", "waiting"]);
    expect(() => router.add({ id: "n", instruction: "x", source: new ManualSource() })).toThrow("stopped");
  });

  test("stop is idempotent and resolves at once when nothing runs", async () => {
    const s = await setup();
    const a = s.router.stop({ graceMs: 5000 });
    expect(s.router.stop()).toBe(a);
    await a;
    expect(s.clock.pending).toBe(0);
    await expect(s.manual.fire()).rejects.toThrow("not started");
  });
});
