/**
 * An agent's triggers, in process: a real agent (createAgent over a scripted model and in-memory tools),
 * resources behind the triggers' SubscribableClient (the in-memory fake of the trigger layer), a fake
 * clock for schedules. The CLI's end-to-end tests run the same code against real MCP children.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger, type Logger } from "../../log.ts";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { callTools, reply, scriptedModel, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import { MemoryJobStore } from "../index.ts";
import { FakeClock } from "../fake-clock.ts";
import { FakeResourceClient } from "../__fixtures__/trigger-harness.ts";
import { createAgent } from "../../agent/create-agent.ts";
import { AgentTriggers, type AgentTriggersOptions } from "./agent-triggers.ts";
import { createRunTriggerTags } from "./run-trigger-tags.ts";
import type { TriggerAgent } from "./trigger-runner.ts";
import type { TriggerSpec } from "./trigger-specs.ts";

/** A trigger instruction with its resource-text fences removed (the fence itself is tested in loop/fence.test.ts). */
const UNFENCE = /<resource-text-([a-z2-7]{20}) uri="[^"]*" untrusted="true">\n([\s\S]*?)\n<\/resource-text-\1>/g;

const URI = "file:///inbox.md";
let triggers: AgentTriggers | undefined;
afterEach(async () => {
  await triggers?.stop({ graceMs: 0 });
  triggers = undefined;
});

/** A real agent whose MCP clients are the given fakes; every run's input and run id is recorded. */
function agentWith(steps: Step[], clients: Record<string, FakeResourceClient> = {}, logger: Logger = memoryLogger()) {
  const tools = memoryToolSet([{ name: "ack", run: (_args, ctx) => `acked ${ctx.runId}` }]);
  const model = scriptedModel(steps);
  const agent = createAgent({ model, tools, logger, limits: { maxTurns: 3 } });
  const runs: Array<{ input: string; runId: string }> = [];
  const triggerAgent: TriggerAgent = {
    connect: () => agent.connect(),
    run: (input, options) => {
      runs.push({ input, runId: options.runId });
      return agent.run(input, options);
    },
    clients: new Map(Object.entries(clients)),
  };
  return { agent: triggerAgent, model, tools, runs, logger };
}

function build(options: Omit<AgentTriggersOptions, "specs"> & { specs: TriggerSpec[] }) {
  triggers = new AgentTriggers(options);
  const ends: Array<{ runId: string; status: string }> = [];
  const waiters: Array<() => void> = [];
  triggers.on("run-end", (e) => {
    ends.push({ runId: e.runId, status: e.outcome.status });
    for (const w of waiters.splice(0)) w();
  });
  const runEnds = async (n: number) => {
    while (ends.length < n) await new Promise<void>((r) => waiters.push(r));
    return ends.slice(0, n);
  };
  return { triggers, ends, runEnds };
}

const sub = (id = "sub:inbox:file:///inbox.md", extra: Partial<TriggerSpec> = {}): TriggerSpec =>
  ({
    kind: "subscription",
    id,
    server: "inbox",
    uri: URI,
    instruction: "Triage: {{resource.text}}",
    concurrency: "queue",
    ...extra,
  }) as TriggerSpec;

describe("subscriptions", () => {
  test("read after subscribe, then one run per change, each with its own run id in the tools' context", async () => {
    const inbox = new FakeResourceClient();
    inbox.texts.set(URI, "v0");
    const { agent, runs, tools } = agentWith(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? callTools([["ack", {}]]) : reply("done"))),
      { inbox },
    );
    const { triggers, runEnds } = build({ agent, specs: [sub()] });
    await triggers.start();
    await runEnds(1);
    inbox.set(URI, "v1");
    await runEnds(2);
    inbox.set(URI, "v2");
    const ends = await runEnds(3);
    expect(runs.map((r) => r.input.replace(UNFENCE, "$2"))).toEqual(["Triage: v0", "Triage: v1", "Triage: v2"]);
    expect(new Set(ends.map((e) => e.runId)).size).toBe(3);
    expect(tools.calls.map((c) => c.ctx.runId)).toEqual(ends.map((e) => e.runId));
    expect(triggers.status()[0]).toMatchObject({ state: "active", runs: 3, failures: 0, lastOutcome: "ok" });
  });

  test("a server without resources.subscribe is unavailable (one line naming trigger and server); the other triggers run", async () => {
    const flat = new FakeResourceClient(false);
    flat.texts.set(URI, "x");
    const inbox = new FakeResourceClient();
    inbox.texts.set(URI, "y");
    const logger = memoryLogger();
    const { agent, runs } = agentWith([reply("ok")], { flat, inbox }, logger);
    const { triggers, runEnds } = build({ agent, logger, specs: [sub("a", { server: "flat" }), sub("b")] });
    expect(await triggers.start()).toEqual({ active: 1, unavailable: 1 });
    await runEnds(1);
    expect(runs.map((r) => r.input.replace(UNFENCE, "$2"))).toEqual(["Triage: y"]);
    const line = logger.records.filter((r) => r.event === "trigger.unavailable");
    expect(line).toHaveLength(1);
    expect(line[0]).toMatchObject({ trigger: "a", server: "flat" });
    expect(String(line[0]?.reason)).toContain("server 'flat' does not support resource subscriptions; set pollInterval");
    expect(triggers.status().map((s) => s.state)).toEqual(["unavailable", "active"]);
  });

  test("with pollInterval such a server is polled: status `polling`, a change is run", async () => {
    const flat = new FakeResourceClient(false);
    flat.texts.set(URI, "p0");
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { agent, runs } = agentWith([reply("ok"), reply("ok")], { flat });
    const { triggers, runEnds } = build({ agent, clock, specs: [sub("p", { server: "flat", pollIntervalMs: 1000 })] });
    await triggers.start();
    await runEnds(1);
    expect(triggers.status()[0]).toMatchObject({ state: "polling", reason: expect.stringContaining("polling every 1000ms") });
    flat.texts.set(URI, "p1");
    clock.advance(1000);
    await runEnds(2);
    expect(runs.map((r) => r.input.replace(UNFENCE, "$2"))).toEqual(["Triage: p0", "Triage: p1"]);
  });

  test("a subscription to a server that is not connected is unavailable, and `ended` resolves when nothing is left", async () => {
    const { agent } = agentWith([]);
    const { triggers } = build({ agent, specs: [sub("gone", { server: "nowhere" })] });
    expect(await triggers.start()).toEqual({ active: 0, unavailable: 1 });
    await triggers.ended;
    expect(triggers.status()[0]?.reason).toContain("server 'nowhere' is not connected");
  });
});

describe("runs and idempotency", () => {
  test("a run id that already succeeded in this process is `already-done` without a model call", async () => {
    const inbox = new FakeResourceClient();
    inbox.texts.set(URI, "A");
    const { agent, model } = agentWith([reply("did A"), reply("did B")], { inbox });
    const { triggers, runEnds } = build({ agent, specs: [sub()] });
    await triggers.start();
    await runEnds(1);
    inbox.set(URI, "B");
    await runEnds(2);
    inbox.set(URI, "A"); // the state A again: the same run id
    const ends = await runEnds(3);
    expect(ends[2]).toEqual({ runId: ends[0]?.runId as string, status: "already-done" });
    expect(model.requests).toHaveLength(2);
    expect(triggers.runner.done.has(ends[0]?.runId as string)).toBe(true);
  });

  test("a final answer of ALREADY_DONE makes the run `already-done`; a budget trip is `failed` with its code", async () => {
    const { agent } = agentWith([reply("  ALREADY_DONE\n"), ...Array.from({ length: 3 }, () => callTools([["ack", {}]]))]);
    const logger = memoryLogger();
    const { triggers, runEnds } = build({
      agent,
      logger,
      specs: [{ kind: "interval", id: "interval", everyMs: 0, maxRuns: 2, instruction: "tick {{tick}}" }],
    });
    await triggers.start();
    const ends = await runEnds(2);
    expect(ends.map((e) => e.status)).toEqual(["already-done", "failed"]);
    const failed = logger.records.find((r) => r.event === "trigger.run-end" && r.status === "failed");
    expect(failed).toMatchObject({ level: "error", trigger: "interval", code: "E_BUDGET_TURNS" });
    await triggers.ended;
    expect(triggers.status()[0]).toMatchObject({ state: "ended", runs: 2, failures: 1 });
  });

  test("stop after the grace period aborts the run: its outcome is `aborted`", async () => {
    let sawAbort = false;
    const hang: Step = (request) =>
      new Promise((_resolve, reject) => {
        request.signal?.addEventListener("abort", () => {
          sawAbort = true;
          reject(new Error("aborted"));
        });
      });
    const { agent } = agentWith([hang]);
    const { triggers, ends } = build({ agent, specs: [{ kind: "interval", id: "interval", everyMs: 0, instruction: "wait" }] });
    await triggers.start();
    await triggers.stop({ graceMs: 20 });
    expect(sawAbort).toBe(true);
    expect(ends.map((e) => e.status)).toEqual(["aborted"]);
  });

  test("records of a triggered run carry `trigger` (run.start, tool.call.start, run.end)", async () => {
    const base = memoryLogger();
    // The agent finds a run's trigger on the run in flight; here a table stands in for the agent's runs.
    const inFlight = new Map<string, string>();
    const logger = createRunTriggerTags(base, (runId) => inFlight.get(runId));
    const { agent } = agentWith([callTools([["ack", {}]]), reply("fine")], {}, logger);
    const { triggers, runEnds } = build({
      agent,
      logger,
      onRunStart: (runId, trigger) => void inFlight.set(runId, trigger),
      onRunSettled: (runId) => void inFlight.delete(runId),
      specs: [{ kind: "interval", id: "every", everyMs: 0, maxRuns: 1, instruction: "go" }],
    });
    await triggers.start();
    const [end] = await runEnds(1);
    const of = (event: string) => base.records.filter((r) => r.event === event && r.runId === end?.runId);
    for (const event of ["trigger.fire", "run.start", "tool.call.start", "run.end", "trigger.run-end"])
      expect(of(event)[0]?.trigger).toBe("every");
    expect(of("run.end")[0]?.usage).toBeDefined();
  });
});

describe("schedules", () => {
  test("time-zone cron catch-up at start: the missed ticks run (latest only), and the next fire is logged", async () => {
    const clock = new FakeClock("2026-03-02T10:30:00Z");
    const store = new MemoryJobStore();
    store.entries.set("cron:0 * * * *", "2026-03-02T06:00:00.000Z");
    const logger = memoryLogger();
    const { agent, runs } = agentWith([reply("caught up")], {}, logger);
    const { triggers, runEnds } = build({
      agent,
      logger,
      clock,
      cron: "timezones",
      jobStore: store,
      specs: [{ kind: "cron", id: "cron:0 * * * *", cron: "0 * * * *", catchUp: "latest", instruction: "report for {{tick}}" }],
    });
    await triggers.start();
    await runEnds(1);
    expect(runs.map((r) => r.input.replace(UNFENCE, "$2"))).toEqual(["report for 2026-03-02T10:00:00.000Z"]);
    const scheduled = logger.records.filter((r) => r.event === "trigger.scheduled");
    expect(scheduled.at(-1)).toMatchObject({ trigger: "cron:0 * * * *", nextFire: "2026-03-02T11:00:00.000Z", tz: "UTC" });
    expect(logger.records.find((r) => r.event === "trigger.run-end")).toMatchObject({ tick: "2026-03-02T10:00:00.000Z", catchUp: true });
    expect(triggers.status()[0]?.nextFire).toBe("2026-03-02T11:00:00.000Z");
  });
});
