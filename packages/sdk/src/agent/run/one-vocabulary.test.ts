/**
 * One event vocabulary: a listener (`onEvent`, `agent.on()`) and `agent.stream()` see the same events by
 * the same names — the stream is a view, `finish` in place of `run-end` — and the telemetry records are
 * those names with dots. A listener written against the old names keeps working when wrapped with
 * `withLegacyEventNames`, receiving each event once under its old name.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { RunEvent } from "../../loop/events.ts";
import { type LegacyRunEvent, withLegacyEventNames } from "../../loop/legacy-events.ts";
import type { AgentOptions } from "../types/agent-options.ts";
import { type Agent, createAgent } from "../create-agent.ts";

const agents: Agent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});

const CURRENT = [
  "run-start",
  "model-start",
  "model-end",
  "tool-call-start",
  "tool-call-progress",
  "tool-call-end",
  "budget-warning",
  "run-end",
];

function oneToolRun(extra: Partial<AgentOptions> = {}): Agent {
  const tools = memoryToolSet([{ name: "kb/lookup", run: (a) => `found ${String(a.q)}` }]);
  const agent = createAgent({
    model: scriptedModel([callTools([["kb__lookup", { q: "cats" }]]), reply("done")]),
    tools,
    // Two turns of two: the second passes 80% of the turn budget (a budget-warning).
    limits: { maxTurns: 2 },
    ...extra,
  });
  agents.push(agent);
  return agent;
}

describe("one event vocabulary", () => {
  test("the stream yields the listener's events, same names and fields, with finish where the listener sees run-end", async () => {
    const heard: RunEvent[] = [];
    const agent = oneToolRun({ onEvent: (e) => heard.push(e) });
    const streamed = [];
    for await (const e of agent.stream("go", { runId: "v1" })) streamed.push(e);
    expect(heard.at(-1)?.type).toBe("run-end");
    expect(streamed.at(-1)?.type).toBe("finish");
    // Everything but the last is the very same event, not a translation.
    expect(streamed.slice(0, -1)).toEqual(heard.slice(0, -1) as typeof streamed);
    for (const e of heard) expect(e.type === "text-delta" || CURRENT.includes(e.type)).toBe(true);
  });

  test("telemetry records are the events' names with dots for hyphens", async () => {
    const logger = memoryLogger("debug");
    const agent = oneToolRun({ logger });
    await agent.run("go");
    const names = new Set(logger.records.map((r) => r.event));
    for (const n of ["run.start", "model.start", "model.end", "tool.call.start", "tool.call.end", "run.end"]) expect(names).toContain(n);
    for (const old of ["model.request", "model.response", "tool.call", "tool.result"]) expect(names).not.toContain(old);
  });

  test("a listener written against the old names still works when wrapped, and counts each event once", async () => {
    // A consumer as it was written before: switching on the old names.
    const counts: Record<string, number> = {};
    const tools: string[] = [];
    const legacyListener = (e: LegacyRunEvent) => {
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      switch (e.type) {
        case "tool-call":
          tools.push(`call ${e.qualifiedName}`);
          break;
        case "tool-result":
          tools.push(`result ${e.qualifiedName} ${e.isError ? "error" : "ok"} ${e.summary}`);
          break;
      }
    };
    const current: RunEvent[] = [];
    const agent = oneToolRun({ onEvent: withLegacyEventNames(legacyListener) });
    const off = agent.on((e) => current.push(e));
    await agent.run("go");
    off();
    expect(tools).toEqual(["call kb/lookup", "result kb/lookup ok found cats"]);
    expect(counts).toMatchObject({
      "run-start": 1,
      "model-request": 2,
      "model-response": 2,
      "tool-call": 1,
      "tool-result": 1,
      budget: 1,
      "run-end": 1,
    });
    for (const name of ["model-start", "model-end", "tool-call-start", "tool-call-end", "budget-warning"])
      expect(counts[name]).toBeUndefined();
    // The unwrapped listener of the same run hears the current names only, as many events.
    expect(current.map((e) => e.type).filter((t) => t !== "text-delta")).toEqual([
      "run-start",
      "model-start",
      "model-end",
      "tool-call-start",
      "tool-call-end",
      "budget-warning",
      "model-start",
      "model-end",
      "run-end",
    ]);
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(current.length);
  });

  test("agent.on() takes a wrapped listener too", async () => {
    const names: string[] = [];
    const agent = oneToolRun();
    agent.on(withLegacyEventNames((e) => names.push(e.type)));
    await agent.run("go");
    expect(names).toContain("tool-result");
    expect(names).not.toContain("tool-call-end");
  });
});
