/**
 * Clock modes end to end (`agentd run --mode interval|cron`) through the real CLI process and a fake
 * gateway. Cron firing itself is covered by the trigger layer's fake-clock tests; here: start-up
 * validation, the computed next fire (`trigger.scheduled`), and time-zone cron catch-up from a job store written
 * before start (simulated downtime), including the store surviving a restart.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { instructionOf, modelEnv } from "./__fixtures__/scripts.ts";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await stopAll();
  await gateway?.close();
  ws?.cleanup();
  gateway = undefined;
  ws = undefined;
});

const echoGateway = () =>
  startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [(req) => ({ text: `did ${instructionOf(req)}` })] });
const HOUR = 3_600_000;

describe("agentd run --mode interval", () => {
  test("--interval 0 --max-runs 3: exactly three runs, one after another, then exit 0", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    const run = await ws.run(["run", "--interval", "0", "--max-runs", "3", "--json", "tick {{tick}}"], { env: modelEnv(gateway) });
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.trigger === "interval" && l.status === "ok" && String(l.text).startsWith("did tick 20"))).toBe(true);
    expect(new Set(lines.map((l) => l.runId)).size).toBe(3);
    expect(gateway.requests).toHaveLength(3);
    // Sequential: each run starts after the previous one ended.
    const order = events(run)
      .filter((e) => e.event === "run.start" || e.event === "run.end")
      .map((e) => `${e.event === "run.start" ? "start" : "end"}:${e.runId}`);
    expect(order).toEqual(lines.flatMap((l) => [`start:${l.runId}`, `end:${l.runId}`]));
    expect(
      events(run)
        .filter((e) => e.event === "run.start")
        .every((e) => e.trigger === "interval"),
    ).toBe(true);
    expect(events(run).find((e) => e.event === "mode.end")).toMatchObject({ reason: "every trigger ended" });
  }, 60_000);

  test("a failing run is logged with its code and the mode carries on; the exit code reports it at the end", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [{ text: "first ok" }, { text: "way too long", usage: { input: 5000, output: 5000 } }, { text: "third ok" }],
    });
    const run = await ws.run(["run", "--interval", "0", "--max-runs", "3", "--max-tokens", "1000", "go"], { env: modelEnv(gateway) });
    expect(run.stdout).toBe("first ok\nthird ok\n");
    const ends = events(run).filter((e) => e.event === "trigger.run-end");
    expect(ends.map((e) => e.status)).toEqual(["ok", "failed", "ok"]);
    expect(ends[1]).toMatchObject({ level: "error", code: "E_BUDGET_TOKENS" });
    expect(run.code).toBe(3);
  }, 60_000);

  test("flag mistakes are one line, exit 2", async () => {
    ws = new CliWorkspace();
    const env = { AGENT_INTELLIGENCE: "http://127.0.0.1:9/v1" };
    const cases: Array<[string[], string]> = [
      [["run", "--interval", "soon", "x"], "--interval 'soon': expected a duration with a unit"],
      // A bare number was milliseconds: --interval 5 re-ran every few ms, spending without bound.
      [["run", "--interval", "5", "x"], "--interval '5': a bare number has no unit: put ms, s, m, h or d after it (e.g. --interval 5m)"],
      [["run", "--interval", "5m", "--cron", "* * * * *", "x"], "cannot be combined"],
      [["run", "--mode", "cron", "--interval", "5m", "x"], "--interval belongs to --mode interval"],
      [["run", "--max-runs", "2", "x"], "--max-runs applies to --mode interval"],
      [["run", "--mode", "interval"], "nothing to run: pass --interval D"],
      [["run", "--mode", "sometimes", "x"], "--mode expects once, interval, cron or reactive"],
      [["run", "--interval", "0", "--run-id", "r1", "x"], "--run-id applies to --mode once"],
      [["run", "--subscribe", "nope:file:///x", "x"], "--subscribe: server 'nope' is not in mcpServers"],
      [["run", "--interval", "1m", "--grace", "later", "x"], "--grace 'later': expected a duration with a unit"],
    ];
    for (const [args, message] of cases) {
      const run = await ws.run(args, { env });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr, args.join(" ")).toContain(message);
      expect(run.stderr).not.toContain("    at ");
    }
  }, 60_000);
});

describe("agentd run --mode cron", () => {
  test("--cron starts, logs the computed next fire (5-field UTC), and stops on SIGTERM with 143", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    const agentd = startAgentd(["run", "--cron", "*/5 * * * *", "report"], { cwd: ws.dir, env: modelEnv(gateway) });
    const [scheduled] = await agentd.waitFor("trigger.scheduled");
    const next = Date.parse(scheduled?.nextFire);
    const at = Date.parse(scheduled?.ts);
    expect(scheduled).toMatchObject({ trigger: "cron:*/5 * * * *", tz: "UTC" });
    expect(next).toBeGreaterThan(at);
    expect(next - at).toBeLessThanOrEqual(5 * 60_000);
    expect(new Date(next).getUTCMinutes() % 5).toBe(0);
    expect(new Date(next).getUTCSeconds()).toBe(0);
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect(agentd.stderr).toContain("agentd: interrupted by SIGTERM after draining");
  }, 60_000);

  test("--tz implies the time-zone cron (no --cron-timezones needed) and computes the next fire in that zone", async () => {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    const bad = await ws.run(["run", "--cron", "61 * * * *", "report"], { env: modelEnv(gateway) });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("cron '61 * * * *'");
    const agentd = startAgentd(["run", "--cron", "0 7 * * *", "--tz", "Europe/Berlin", "report"], { cwd: ws.dir, env: modelEnv(gateway) });
    const [scheduled] = await agentd.waitFor("trigger.scheduled");
    expect(scheduled).toMatchObject({ trigger: "cron:0 7 * * * Europe/Berlin", tz: "Europe/Berlin" });
    const next = new Date(scheduled?.nextFire);
    const berlin = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Europe/Berlin",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(next);
    expect(berlin).toBe("07:00");
    expect(next.getTime() - Date.parse(scheduled?.ts)).toBeLessThanOrEqual(25 * HOUR);
    agentd.signal("SIGINT");
    expect(await agentd.exited).toBe(130);
  }, 60_000);

  test.each([
    ["UTC", ["--cron", "@daily"]],
    ["Asia/Tokyo", ["--cron", "@daily", "--tz", "Asia/Tokyo"]],
  ])(
    "--cron @daily runs at midnight in %s",
    async (zone, flags) => {
      ws = new CliWorkspace();
      gateway = await echoGateway();
      const agentd = startAgentd(["run", ...flags, "report"], { cwd: ws.dir, env: modelEnv(gateway) });
      const [scheduled] = await agentd.waitFor("trigger.scheduled");
      expect(scheduled).toMatchObject({ tz: zone });
      const next = new Date(scheduled?.nextFire);
      const local = new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
      }).format(next);
      expect(local).toBe("00:00:00");
      expect(next.getTime() - Date.parse(scheduled?.ts)).toBeLessThanOrEqual(24 * HOUR);
      agentd.signal("SIGTERM");
      expect(await agentd.exited).toBe(143);
    },
    60_000,
  );
});

describe("time-zone cron catch-up after downtime (a job store written before start)", () => {
  const ID = "cron:0 * * * *";
  async function cronSetup(catchUp: string) {
    ws = new CliWorkspace();
    gateway = await echoGateway();
    const jobs = join(ws.dir, "jobs.json");
    // Down since five hours before the last full hour.
    const lastFire = new Date(Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR).toISOString();
    writeFileSync(jobs, JSON.stringify({ version: 1, schedules: { [ID]: { lastFire } } }));
    const config = ws.writeConfig({
      capabilities: { cron: "timezones" },
      triggers: { jobStore: jobs, schedules: [{ cron: "0 * * * *", catchUp, concurrency: "queue", instruction: "report for {{tick}}" }] },
    });
    const start = () =>
      startAgentd(["run", "--mode", "cron", "--config", config], { cwd: (ws as CliWorkspace).dir, env: modelEnv(gateway as FakeGateway) });
    return { jobs, start, lastFire };
  }
  /** The catch-up runs' ticks, checked to be whole hours after `lastFire`, ascending and consecutive. */
  const ticksOf = (ends: Array<Record<string, any>>, startedTs: string) => {
    const ticks = ends.map((e) => Date.parse(e.tick));
    for (const t of ticks) expect(t % HOUR).toBe(0);
    ticks.forEach((t, i) => i > 0 && expect(t - (ticks[i - 1] as number)).toBe(HOUR));
    expect(Date.parse(startedTs) - (ticks.at(-1) as number)).toBeLessThan(HOUR);
    return ticks;
  };

  test("catchUp latest: the one latest missed tick runs at start; the store then survives a restart (nothing more to catch up)", async () => {
    const { jobs, start } = await cronSetup("latest");
    const agentd = start();
    const [started] = await agentd.waitFor("triggers.started");
    const ends = await agentd.waitFor("trigger.run-end");
    expect(ends[0]).toMatchObject({ trigger: ID, status: "ok", catchUp: true });
    const [tick] = ticksOf(ends, started?.ts);
    expect(agentd.named("trigger.fire")).toHaveLength(1);
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect(JSON.parse(readFileSync(jobs, "utf8")).schedules[ID].lastFire).toBe(new Date(tick as number).toISOString());
    const again = start();
    await again.waitFor("triggers.started");
    await again.waitFor("trigger.scheduled");
    expect(again.named("trigger.fire")).toHaveLength(0);
    again.signal("SIGTERM");
    expect(await again.exited).toBe(143);
  }, 60_000);

  test("catchUp all:3: the three latest missed ticks run, oldest first, each its own run id", async () => {
    const { start } = await cronSetup("all:3");
    const agentd = start();
    const [started] = await agentd.waitFor("triggers.started");
    const ends = await agentd.waitFor("trigger.run-end", 3);
    ticksOf(ends, started?.ts);
    expect(new Set(ends.map((e) => e.runId)).size).toBe(3);
    expect(agentd.named("trigger.catch-up")[0]).toMatchObject({ policy: "all", firing: 3, omittedOlder: true });
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect(agentd.stdout.trim().split("\n")).toEqual(ends.map((e) => `did report for ${e.tick}`));
  }, 60_000);

  test("catchUp none: nothing runs at start; the next fire is scheduled", async () => {
    const { start } = await cronSetup("none");
    const agentd = start();
    await agentd.waitFor("triggers.started");
    const [scheduled] = await agentd.waitFor("trigger.scheduled");
    expect(Date.parse(scheduled?.nextFire) % HOUR).toBe(0);
    expect(agentd.named("trigger.fire")).toHaveLength(0);
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect((gateway as FakeGateway).requests).toHaveLength(0);
  }, 60_000);

  test('catchUp and a job store under "utc" are config errors naming the switch', async () => {
    ws = new CliWorkspace();
    const config = ws.writeConfig({ triggers: { jobStore: "jobs.json", schedules: [{ cron: "0 * * * *", instruction: "r" }] } });
    const run = await ws.run(["run", "--mode", "cron", "--config", config], { env: { AGENT_INTELLIGENCE: "http://127.0.0.1:9/v1" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('triggers.jobStore needs the richer cron: set capabilities.cron to "timezones"');
  }, 60_000);
});
