import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../config/load.ts";
import { AgentdError } from "../../wire/errors.ts";
import { triggerSpecsFromConfig } from "./trigger-specs.ts";

const servers = { mcpServers: { fs: { command: "fs-server" } } };
const plan = (raw: Record<string, unknown>) => triggerSpecsFromConfig(parseConfig(raw, {}));
const failure = (raw: Record<string, unknown>): string => {
  try {
    plan(raw);
  } catch (e) {
    if (AgentdError.isInstance(e) && e.code === "E_CONFIG_INVALID") return e.message;
    throw e;
  }
  throw new Error("expected E_CONFIG_INVALID");
};

describe("triggerSpecsFromConfig", () => {
  test("stable ids from what each trigger watches; durations and policies parsed", () => {
    const { specs } = plan({
      ...servers,
      triggers: {
        subscriptions: [
          { server: "fs", uri: "file:///a", instruction: "A", coalesce: "2s", concurrency: "parallel:2", pollInterval: "30s" },
          { server: "fs", uri: "file:///a", instruction: "A again" },
        ],
        schedules: [{ cron: "0 7 * * 1-5", instruction: "daily" }],
        interval: { every: 0, instruction: "loop", maxRuns: 3 },
      },
    });
    expect(specs).toEqual([
      {
        kind: "subscription",
        id: "sub:fs:file:///a",
        server: "fs",
        uri: "file:///a",
        instruction: "A",
        coalesceMs: 2000,
        concurrency: { parallel: 2 },
        pollIntervalMs: 30_000,
      },
      { kind: "subscription", id: "sub:fs:file:///a#2", server: "fs", uri: "file:///a", instruction: "A again" },
      { kind: "cron", id: "cron:0 7 * * 1-5", cron: "0 7 * * 1-5", instruction: "daily" },
      { kind: "interval", id: "interval", everyMs: 0, maxRuns: 3, instruction: "loop" },
    ]);
  });

  test("a subscription must name a configured server", () => {
    expect(failure({ triggers: { subscriptions: [{ server: "nope", uri: "x://y", instruction: "i" }] } })).toBe(
      "triggers.subscriptions[0]: server 'nope' is not in mcpServers",
    );
    expect(failure({ triggers: { selfSubscribe: { servers: ["nope"] } } })).toBe(
      "triggers.selfSubscribe.servers[0]: server 'nope' is not in mcpServers",
    );
  });

  test('with capabilities.cron "utc" (the default) tz, catchUp and jobStore are errors naming the switch', () => {
    const sched = (extra: Record<string, unknown>) => ({ triggers: { schedules: [{ cron: "0 7 * * *", instruction: "i", ...extra }] } });
    expect(failure(sched({ tz: "Europe/Berlin" }))).toContain('tz needs the richer cron: set capabilities.cron to "timezones"');
    expect(failure(sched({ catchUp: "latest" }))).toContain("catchUp needs the richer cron");
    expect(failure({ triggers: { jobStore: "/tmp/jobs.json" } })).toContain(
      'triggers.jobStore needs the richer cron: set capabilities.cron to "timezones"',
    );
    expect(plan(sched({ catchUp: "none" })).specs).toHaveLength(1);
  });

  test('with "timezones" they pass through', () => {
    const p = plan({
      capabilities: { cron: "timezones" },
      triggers: { jobStore: "jobs.json", schedules: [{ cron: "0 7 * * *", tz: "Europe/Berlin", catchUp: "all:3", instruction: "i" }] },
    });
    expect(p).toEqual({
      jobStore: "jobs.json",
      specs: [
        { kind: "cron", id: "cron:0 7 * * * Europe/Berlin", cron: "0 7 * * *", tz: "Europe/Berlin", catchUp: "all:3", instruction: "i" },
      ],
    });
  });
});

describe("validation before anything starts", () => {
  test("a bad expression, template or catch-up policy is one line", () => {
    expect(failure({ triggers: { schedules: [{ cron: "every day", instruction: "i" }] } })).toContain(
      "cron 'every day': expected 5 fields",
    );
    expect(failure({ triggers: { interval: { every: "5m", instruction: "at {{resource.text}}" } } })).toContain(
      "trigger 'interval': instruction: unknown placeholder {{resource.text}} for a interval trigger",
    );
    expect(
      failure({
        capabilities: { cron: "timezones" },
        triggers: { schedules: [{ cron: "0 7 * * *", tz: "Mars/Olympus", instruction: "i" }] },
      }),
    ).toContain("unknown time zone 'Mars/Olympus'");
  });
});
