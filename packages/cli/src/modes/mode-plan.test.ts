import { describe, expect, test } from "bun:test";
import { AgentdError, parseConfig } from "@agentd/sdk";
import { graceOf, modeOf, planTriggers, type ModeFlags } from "./mode-plan.ts";

const config = parseConfig(
  {
    mcpServers: { fs: { command: "fs-server" } },
    triggers: {
      subscriptions: [{ server: "fs", uri: "file:///a", instruction: "A {{resource.text}}" }],
      schedules: [{ cron: "0 7 * * *", instruction: "daily" }],
      interval: { every: "5m", instruction: "poll", maxRuns: 2 },
    },
  },
  {},
);
const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (AgentdError.isInstance(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  return "no error";
};

describe("modeOf", () => {
  test("once by default; implied by the trigger flags; --mode wins only when consistent", () => {
    expect(modeOf({})).toBe("once");
    expect(modeOf({ interval: "0" })).toBe("interval");
    expect(modeOf({ cron: "* * * * *" })).toBe("cron");
    expect(modeOf({ subscribe: "fs:file:///a" })).toBe("reactive");
    expect(modeOf({ mode: "reactive" })).toBe("reactive");
    expect(code(() => modeOf({ mode: "cron", subscribe: "fs:x" }))).toBe(
      "E_USAGE: --subscribe belongs to --mode reactive, not --mode cron",
    );
    expect(code(() => modeOf({ tz: "UTC" }))).toBe("E_USAGE: --tz goes with --cron EXPR");
  });
  test("--grace is a duration, 30s by default", () => {
    expect(graceOf({})).toBe(30_000);
    expect(graceOf({ grace: "500ms" })).toBe(500);
  });
});

describe("planTriggers", () => {
  const plan = (mode: "interval" | "cron" | "reactive", flags: ModeFlags, instruction?: string) =>
    planTriggers(mode, flags, config, instruction);

  test("a mode runs the config's triggers of its kind", () => {
    expect(plan("reactive", {}).specs.map((s) => s.id)).toEqual(["sub:fs:file:///a"]);
    expect(plan("cron", {}).specs.map((s) => s.id)).toEqual(["cron:0 7 * * *"]);
  });

  test("a flag trigger is added (the interval flag replaces the config's), with the positional instruction", () => {
    expect(plan("reactive", { subscribe: "fs:file:///b" }, "B").specs.map((s) => [s.id, s.instruction])).toEqual([
      ["sub:fs:file:///a", "A {{resource.text}}"],
      ["sub:fs:file:///b", "B"],
    ]);
    expect(plan("interval", { interval: "0", maxRuns: "3" }, "now").specs).toEqual([
      { kind: "interval", id: "interval", everyMs: 0, maxRuns: 3, instruction: "now" },
    ]);
  });

  test("--max-runs alone overrides the configured interval's maxRuns", () => {
    expect(plan("interval", { maxRuns: "7" }).specs).toEqual([
      { kind: "interval", id: "interval", everyMs: 300_000, maxRuns: 7, instruction: "poll" },
    ]);
  });

  test("the instruction argument belongs to a flag trigger; a flag trigger needs one", () => {
    expect(code(() => plan("reactive", {}, "stray"))).toContain("the instruction argument goes with --interval, --cron or --subscribe");
    expect(code(() => plan("cron", { cron: "* * * * *" }))).toContain("no instruction");
  });

  test("--tz implies the time-zone cron (with or without --cron-timezones); a bad template is caught before anything starts", () => {
    const zoned = plan("cron", { cron: "0 7 * * *", tz: "Europe/Berlin" }, "r");
    expect(zoned.cron).toBe("timezones");
    expect(zoned.specs.at(-1)).toMatchObject({ cron: "0 7 * * *", tz: "Europe/Berlin" });
    expect(plan("cron", { cron: "0 7 * * *", tz: "Europe/Berlin", cronTimezones: true }, "r")).toMatchObject({ cron: "timezones" });
    expect(plan("cron", { cron: "0 7 * * *" }, "r")).toMatchObject({ cron: "utc" });
    expect(code(() => plan("cron", { cron: "0 7 * * *", tz: "Mars/Olympus" }, "r"))).toContain("unknown time zone 'Mars/Olympus'");
    expect(code(() => plan("cron", { cron: "0 7 * * *" }, "r {{resource.text}}"))).toContain("unknown placeholder {{resource.text}}");
  });

  test("--cron takes the nicknames in both modes", () => {
    const daily = plan("cron", { cron: "@daily" }, "r");
    expect(daily.cron).toBe("utc");
    expect(daily.specs.at(-1)).toMatchObject({ cron: "@daily", id: "cron:@daily" });
    const hourly = plan("cron", { cron: "@hourly", tz: "Asia/Tokyo" }, "r");
    expect(hourly.cron).toBe("timezones");
    expect(hourly.specs.at(-1)).toMatchObject({ cron: "@hourly", tz: "Asia/Tokyo" });
    expect(code(() => plan("cron", { cron: "@reboot" }, "r"))).toContain("cron '@reboot': unknown nickname");
  });
});
