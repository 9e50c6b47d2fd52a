import { describe, expect, test } from "bun:test";
import { DEFAULT_CATCH_UP_LIMIT, missedTicks, parseCatchUp } from "./catch-up.ts";
import { CronSchedule } from "./cron-schedule.ts";

const t = (s: string) => new Date(s).getTime();

describe("catch-up policy", () => {
  test("parses the config forms", () => {
    expect(parseCatchUp("none")).toEqual({ mode: "none" });
    expect(parseCatchUp("latest")).toEqual({ mode: "latest" });
    expect(parseCatchUp("all")).toEqual({ mode: "all", limit: DEFAULT_CATCH_UP_LIMIT });
    expect(DEFAULT_CATCH_UP_LIMIT).toBe(100);
    expect(parseCatchUp("all:7")).toEqual({ mode: "all", limit: 7 });
    for (const bad of ["all:0", "all:", "ALL", "every", "all:-1"]) expect(() => parseCatchUp(bad)).toThrow("expected");
  });

  test("all:N keeps the N most recent ticks and says older ones were omitted", () => {
    const every5 = new CronSchedule({ expression: "*/5 * * * *", mode: "timezones" });
    const r = missedTicks(every5, t("2026-01-01T00:00:00Z"), t("2026-01-01T01:00:00Z"), { mode: "all", limit: 3 });
    expect(r.omitted).toBe(true);
    expect(r.ticks.map((d) => d.toISOString())).toEqual([
      "2026-01-01T00:50:00.000Z",
      "2026-01-01T00:55:00.000Z",
      "2026-01-01T01:00:00.000Z",
    ]);
    const all = missedTicks(every5, t("2026-01-01T00:00:00Z"), t("2026-01-01T01:00:00Z"), { mode: "all", limit: 12 });
    expect(all.omitted).toBe(false);
    expect(all.ticks.length).toBe(12); // 00:05 … 01:00: the stored instant itself is not missed, `now` is
  });

  test("a year of every-minute downtime is bounded, not enumerated", () => {
    const everyMinute = new CronSchedule({ expression: "* * * * *", mode: "timezones" });
    const r = missedTicks(everyMinute, t("2025-01-01T00:00:00Z"), t("2026-01-01T00:00:00Z"), { mode: "all", limit: 100 });
    expect(r.ticks.length).toBe(100);
    expect(r.ticks.at(-1)?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(r.omitted).toBe(true);
  });

  test("latest across a DST gap is the last real tick", () => {
    const s = new CronSchedule({ expression: "30 2 * * *", tz: "America/New_York", mode: "timezones" });
    const r = missedTicks(s, t("2026-03-06T00:00:00Z"), t("2026-03-08T12:00:00Z"), { mode: "latest" });
    expect(r.ticks.map((d) => d.toISOString())).toEqual(["2026-03-08T07:00:00.000Z"]);
  });
});
