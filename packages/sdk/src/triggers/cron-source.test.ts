import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controlledRuns, instantRuns, record } from "./__fixtures__/trigger-harness.ts";
import { CronSource, type CronSourceOptions } from "./cron-source.ts";
import { FakeClock } from "./fake-clock.ts";
import { FileJobStore } from "./file-job-store.ts";
import { MemoryJobStore } from "./job-store.ts";
import { TriggerRouter, type RunFunction } from "./router.ts";
import { cronRunId } from "./run-id.ts";

const routers: TriggerRouter[] = [];
let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentd-cron-"));
});
afterEach(async () => {
  await Promise.all(routers.splice(0).map((r) => r.stop({ graceMs: 0 })));
  await rm(dir, { recursive: true, force: true });
});

function setup(options: CronSourceOptions, start: string, run: RunFunction = instantRuns().run) {
  const clock = new FakeClock(start);
  const router = new TriggerRouter({ run, clock });
  routers.push(router);
  const source = new CronSource({ scheduleId: "nightly", ...options });
  router.add({ id: "report", instruction: "Report for {{tick}}", concurrency: "queue", source });
  const rec = record(router);
  const ticks = () => rec.records.fire.map((f) => f.event.data.tick);
  const firedAt = () => rec.records.fire.map((f) => f.event.at.toISOString());
  return { clock, router, source, ticks, firedAt, ...rec };
}

const iso = (s: string) => new Date(s).toISOString();

describe("CronSource on a fake clock", () => {
  test("time-zone cron: fires at the exact instants across New York's spring forward", async () => {
    const s = setup({ expression: "*/30 * * * *", tz: "America/New_York", mode: "timezones" }, "2026-03-08T05:45:00Z");
    await s.router.start();
    s.clock.advanceTo("2026-03-08T08:00:00Z");
    const expected = ["06:00", "06:30", "07:00", "07:30", "08:00"].map((t) => iso(`2026-03-08T${t}:00Z`));
    expect(s.ticks()).toEqual(expected);
    expect(s.firedAt()).toEqual(expected); // each fired at its instant, not early, not late
    await s.waitFor("run-end", 5);
  });

  test("time-zone cron: a 02:30 Berlin job over both 2026 transitions fires once a day", async () => {
    const s = setup({ expression: "30 2 * * *", tz: "Europe/Berlin", mode: "timezones" }, "2026-03-28T00:00:00Z");
    await s.router.start();
    s.clock.advanceTo("2026-03-31T00:00:00Z");
    expect(s.ticks()).toEqual(["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]);
    s.clock.advanceTo("2026-10-24T00:00:00Z");
    const before = s.ticks().length;
    s.clock.advanceTo("2026-10-27T00:00:00Z");
    expect(s.ticks().slice(before)).toEqual(["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  test("UTC cron: 5-field UTC; the run id comes from schedule id and tick", async () => {
    const s = setup({ expression: "0 * * * *" }, "2026-01-01T00:30:00Z");
    await s.router.start();
    s.clock.advanceTo("2026-01-01T02:00:00Z");
    await s.waitFor("run-end", 2);
    expect(s.ticks()).toEqual([iso("2026-01-01T01:00:00Z"), iso("2026-01-01T02:00:00Z")]);
    const ev = s.records.fire[0]?.event;
    expect(ev?.runId).toBe(cronRunId("nightly", iso("2026-01-01T01:00:00Z")));
    expect(ev?.runId).toMatch(/^cron-[0-9a-f]{16}$/);
    expect(ev?.key).toBe(`nightly@${iso("2026-01-01T01:00:00Z")}`);
  });

  test("UTC cron refuses the time-zone options with one clear line", () => {
    expect(() => new CronSource({ expression: "0 * * * *", catchUp: "latest" })).toThrow(
      `cron '0 * * * *': catchUp needs the richer cron (capabilities.cron "timezones")`,
    );
    expect(() => new CronSource({ expression: "0 * * * *", jobStore: new MemoryJobStore() })).toThrow("a job store needs the richer cron");
    expect(() => new CronSource({ expression: "0 * * * *", tz: "Europe/Berlin" })).toThrow("tz needs the richer cron");
    expect(() => new CronSource({ expression: "0 * * * *", mode: "timezones", catchUp: "some" })).toThrow(
      `catchUp 'some': expected "none", "latest", "all" or "all:N" (N ≥ 1)`,
    );
  });

  test("UTC cron after downtime and a late wake: missed ticks are not caught up", async () => {
    const s = setup({ expression: "0 * * * *" }, "2026-01-01T00:30:00Z");
    await s.router.start();
    s.clock.skew(3 * 3600_000); // asleep until 03:30: the 01:00 timer fires late
    s.clock.advance(0);
    s.clock.advanceTo("2026-01-01T04:00:00Z");
    expect(s.ticks()).toEqual([iso("2026-01-01T01:00:00Z"), iso("2026-01-01T04:00:00Z")]);
  });
});

describe("catch-up after downtime (time-zone cron)", () => {
  // Last fire 00:00; down until 05:30: the hourly ticks 01:00 … 05:00 were missed.
  const missed = ["01", "02", "03", "04", "05"].map((h) => iso(`2026-01-01T${h}:00:00Z`));
  const cases: Array<[string, string[]]> = [
    ["none", []],
    ["latest", missed.slice(4)],
    ["all:3", missed.slice(2)],
    ["all", missed],
  ];
  for (const [policy, expected] of cases)
    test(`${policy}: fires ${expected.length} missed tick(s), with their own tick times and run ids`, async () => {
      const store = new MemoryJobStore();
      store.entries.set("nightly", iso("2026-01-01T00:00:00Z"));
      const s = setup({ expression: "0 * * * *", mode: "timezones", catchUp: policy, jobStore: store }, "2026-01-01T05:30:00Z");
      await s.router.start();
      expect(s.ticks()).toEqual(expected);
      expect(s.records.fire.map((f) => f.event.runId)).toEqual(expected.map((t) => cronRunId("nightly", t)));
      expect(s.records.fire.every((f) => f.event.data.catchUp === true)).toBe(true);
      expect(s.firedAt().every((at) => at === iso("2026-01-01T05:30:00Z"))).toBe(true);
      await s.waitFor("run-end", expected.length);
      await s.router.stop({ graceMs: 0 });
      expect(store.entries.get("nightly")).toBe(expected.at(-1) ?? iso("2026-01-01T00:00:00Z"));
    });

  test("a late wake (suspended process) is caught up like downtime", async () => {
    const s = setup(
      { expression: "0 * * * *", mode: "timezones", catchUp: "latest", jobStore: new MemoryJobStore() },
      "2026-01-01T00:30:00Z",
    );
    await s.router.start();
    s.clock.skew(3 * 3600_000); // 03:30
    s.clock.advance(0);
    expect(s.ticks()).toEqual([iso("2026-01-01T01:00:00Z"), iso("2026-01-01T03:00:00Z")]);
  });

  test("the store records a tick when its run ends, not when it starts; an aborted run is not recorded", async () => {
    const store = new MemoryJobStore();
    const runs = controlledRuns();
    const s = setup({ expression: "0 * * * *", mode: "timezones", jobStore: store }, "2026-01-01T00:30:00Z", runs.run);
    await s.router.start();
    expect(store.entries.get("nightly")).toBe(iso("2026-01-01T00:30:00Z")); // first start: the baseline
    s.clock.advanceTo("2026-01-01T01:00:00Z");
    await s.waitFor("run-start");
    expect(store.entries.get("nightly")).toBe(iso("2026-01-01T00:30:00Z"));
    runs.started[0]?.finish();
    await s.waitFor("run-end");
    s.clock.advanceTo("2026-01-01T02:00:00Z");
    await s.waitFor("run-start", 2);
    await s.router.stop({ graceMs: 0 }); // aborts the 02:00 run
    expect(runs.started[1]?.signal.aborted).toBe(true);
    expect(store.entries.get("nightly")).toBe(iso("2026-01-01T01:00:00Z"));
  });
});

describe("restart with a FileJobStore", () => {
  test("a new source reading the same file catches up exactly the ticks missed while down", async () => {
    const path = join(dir, "jobs.json");
    const first = setup(
      { expression: "0 * * * *", mode: "timezones", catchUp: "all", jobStore: new FileJobStore(path) },
      "2026-01-01T00:30:00Z",
    );
    await first.router.start();
    first.clock.advanceTo("2026-01-01T02:00:00Z");
    await first.waitFor("run-end", 2);
    await first.router.stop({ graceMs: 1000 }); // "crash" after 02:00 ran; down until 05:10
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      version: 1,
      schedules: { nightly: { lastFire: iso("2026-01-01T02:00:00Z") } },
    });

    const second = setup(
      { expression: "0 * * * *", mode: "timezones", catchUp: "all", jobStore: new FileJobStore(path) },
      "2026-01-01T05:10:00Z",
    );
    await second.router.start();
    const missed = ["03", "04", "05"].map((h) => iso(`2026-01-01T${h}:00:00Z`));
    expect(second.ticks()).toEqual(missed);
    expect(second.records.fire.map((f) => f.event.runId)).toEqual(missed.map((t) => cronRunId("nightly", t)));
    await second.waitFor("run-end", 3);
    await second.router.stop({ graceMs: 1000 });
    expect(JSON.parse(await readFile(path, "utf8")).schedules.nightly.lastFire).toBe(iso("2026-01-01T05:00:00Z"));
    expect((await readdir(dir)).sort()).toEqual(["jobs.json"]); // temp files were renamed, none left
  });

  test("a job store that cannot be written fails start with a clear error", async () => {
    const path = join(dir, "missing-dir", "jobs.json");
    const s = setup({ expression: "0 * * * *", mode: "timezones", jobStore: new FileJobStore(path) }, "2026-01-01T00:30:00Z");
    await expect(s.router.start()).rejects.toThrow(`job store ${path}: write failed`);
  });
});
