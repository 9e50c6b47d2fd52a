import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryBackend } from "../store/directory-backend.ts";
import { instantRuns, record } from "./__fixtures__/trigger-harness.ts";
import { CronSource } from "./cron-source.ts";
import { FakeClock } from "./fake-clock.ts";
import { TriggerRouter } from "./router.ts";
import { StoreJobStore } from "./store-job-store.ts";

let dir = "";
let backend: DirectoryBackend | undefined;
const routers: TriggerRouter[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentd-store-jobs-"));
  backend = new DirectoryBackend(dir);
});
afterEach(async () => {
  await Promise.all(routers.splice(0).map((r) => r.stop({ graceMs: 0 })));
  await backend?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("StoreJobStore", () => {
  test("what one replica writes, another (or a restarted one) reads; records are per agent identity", async () => {
    const a = new StoreJobStore({ store: backend!, identity: "triage" });
    expect(await a.get("daily")).toBeUndefined();
    await a.set("daily", "2026-01-01T07:00:00.000Z");
    await a.set("daily", "2026-01-02T07:00:00.000Z");
    const b = new StoreJobStore({ store: async () => backend!, identity: "triage" });
    expect(await b.get("daily")).toBe("2026-01-02T07:00:00.000Z");
    expect((await backend!.get("jobs/triage/daily"))?.value).toEqual({ lastFire: "2026-01-02T07:00:00.000Z" });
    expect(await new StoreJobStore({ store: backend!, identity: "other-agent" }).get("daily")).toBeUndefined();
  });

  test("a record never moves backward, whoever writes last", async () => {
    const a = new StoreJobStore({ store: backend!, identity: "x" });
    const b = new StoreJobStore({ store: backend!, identity: "x" });
    await Promise.all([a.set("s", "2026-01-01T09:00:00.000Z"), b.set("s", "2026-01-01T08:00:00.000Z")]);
    await b.set("s", "2026-01-01T07:00:00.000Z");
    expect(await a.get("s")).toBe("2026-01-01T09:00:00.000Z");
  });

  test("schedule ids that are not valid key segments are stored under a hash", async () => {
    const a = new StoreJobStore({ store: backend!, identity: "x" });
    await a.set("triggers.schedules[0] @ 0 7 * * 1-5", "2026-01-01T07:00:00.000Z");
    expect(a.key("triggers.schedules[0] @ 0 7 * * 1-5")).toMatch(/^jobs\/x\/_[A-Za-z0-9_-]{43}$/);
    expect(await a.get("triggers.schedules[0] @ 0 7 * * 1-5")).toBe("2026-01-01T07:00:00.000Z");
  });

  test("catch-up across a restart reads the last fire from the store", async () => {
    const jobs = new StoreJobStore({ store: backend!, identity: "agent" });
    const first = new TriggerRouter({ run: instantRuns().run, clock: new FakeClock("2026-01-01T00:30:00Z") });
    routers.push(first);
    first.add({
      id: "report",
      instruction: "r",
      concurrency: "queue",
      source: new CronSource({ scheduleId: "hourly", expression: "0 * * * *", mode: "timezones", catchUp: "all", jobStore: jobs }),
    });
    await first.start();
    await first.stop({ graceMs: 0 });
    // Down from 00:30 to 03:10: ticks 01:00, 02:00, 03:00 were missed, and are fired once when it returns.
    const clock = new FakeClock("2026-01-01T03:10:00Z");
    const second = new TriggerRouter({ run: instantRuns().run, clock });
    routers.push(second);
    second.add({
      id: "report",
      instruction: "r",
      concurrency: "queue",
      source: new CronSource({
        scheduleId: "hourly",
        expression: "0 * * * *",
        mode: "timezones",
        catchUp: "all",
        jobStore: new StoreJobStore({ store: backend!, identity: "agent" }),
      }),
    });
    const rec = record(second);
    await second.start();
    expect(rec.records.fire.map((f) => f.event.data.tick)).toEqual(["01", "02", "03"].map((h) => `2026-01-01T${h}:00:00.000Z`));
    await rec.waitFor("run-end", 3);
  });
});
