/**
 * The model's self-tools inside the real agentic loop: a scripted model spawns children (real processes,
 * the scripted child), and the run's usage includes theirs; a refused spawn is an observation the model
 * reads; each run sees only its own children.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { callTools, reply, scriptedModel } from "../loop/__fixtures__/scripted-model.ts";
import { runLoop } from "../loop/run-loop.ts";
import { descendants, killAll } from "./__fixtures__/process-tree.ts";
import { ScopedToolSet } from "./scoped-tool-set.ts";
import { SubagentToolSet } from "./self-tools.ts";
import { Supervisor, type SupervisorOptions } from "./supervisor.ts";

const CHILD = resolve(import.meta.dir, "__fixtures__/scripted-child.ts");
let sup: Supervisor | undefined;

afterEach(async () => {
  const pids = sup ? sup.pids().flatMap((p) => [p, ...descendants(p)]) : [];
  await sup?.shutdown();
  killAll(pids);
  sup = undefined;
});

const tools = (options: Partial<SupervisorOptions> = {}) =>
  new SubagentToolSet(
    (sup = new Supervisor({ model: {}, command: { command: process.execPath, args: [CHILD] }, graceMs: 2_000, ...options })),
  );

const lastToolOutput = (model: ReturnType<typeof scriptedModel>) => {
  const msgs = model.requests.at(-1)?.messages ?? [];
  const tool = msgs.findLast((m) => m.role === "tool");
  return tool && tool.role === "tool" ? tool.content.map((c) => c.output).join("\n") : "";
};

describe("subagent self-tools in the loop", () => {
  test("a sync spawn's answer reaches the model and the child's usage is added to the run's", async () => {
    const model = scriptedModel([callTools([["subagent_spawn", { instruction: "echo:from-model" }]]), reply("done")]);
    const result = await runLoop({ model, tools: tools(), input: "delegate", runId: "run-a" });
    expect(lastToolOutput(model)).toContain("echo from-model (attempt 1, run run-a.sa-");
    // Two model turns of 15 tokens, and the child's 15.
    expect(result.usage.totalTokens).toBe(45);
  });

  test("the child's cache and reasoning split is billed to the parent run with it", async () => {
    const model = scriptedModel([callTools([["subagent_spawn", { instruction: "cached:" }]]), reply("done")]);
    const result = await runLoop({ model, tools: tools(), input: "delegate", runId: "run-split" });
    // Two model turns of 10 in / 5 out, and the child's 100 in (80 cached, 10 written) / 20 out (12 reasoning).
    expect(result.usage).toEqual({
      inputTokens: 120,
      outputTokens: 30,
      totalTokens: 150,
      cacheReadTokens: 80,
      cacheWriteTokens: 10,
      reasoningTokens: 12,
    });
  });

  test("async spawn then wait: the handle comes back at once, the result on wait, the usage once", async () => {
    let id = "";
    const model = scriptedModel([
      callTools([["subagent_spawn", { instruction: "echo:bg", async: true }]]),
      (req) => {
        id = /Started subagent (sa-[0-9a-f]+)/.exec(JSON.stringify(req.messages))?.[1] ?? "";
        return callTools([["subagent_wait", { id }]]);
      },
      callTools([["subagent_list", {}]]),
      reply("all done"),
    ]);
    const result = await runLoop({ model, tools: tools(), input: "go", runId: "run-b" });
    expect(id).toMatch(/^sa-/);
    expect(JSON.stringify(model.requests[2]?.messages)).toContain("echo bg (attempt 1");
    expect(lastToolOutput(model)).toContain(`"id":"${id}"`);
    // 4 turns of 15, plus the child's 15 billed once (not again by the list call).
    expect(result.usage.totalTokens).toBe(75);
  });

  test("a spawn past the limits is a tool-domain error the model reads, and the run goes on", async () => {
    const model = scriptedModel([
      callTools([
        ["subagent_spawn", { instruction: "hang", async: true }],
        ["subagent_spawn", { instruction: "hang", async: true }],
      ]),
      reply("understood"),
    ]);
    const result = await runLoop({ model, tools: tools({ maxChildren: 1 }), input: "go", runId: "run-c" });
    expect(result.text).toBe("understood");
    const outputs = JSON.stringify(model.requests[1]?.messages);
    expect(outputs).toContain("Started subagent");
    expect(outputs).toContain("1 of at most 1 subagents are still running");
  });

  test("a failed child is an error observation with its reason and usage", async () => {
    const model = scriptedModel([
      callTools([["subagent_spawn", { instruction: "budget-self:900", limits: { maxTokens: 100 } }]]),
      reply("ok"),
    ]);
    const result = await runLoop({ model, tools: tools(), input: "go", runId: "run-d" });
    const out = lastToolOutput(model);
    expect(out).toContain("failed (limit-exceeded, E_BUDGET_TOKENS)");
    expect(out).toContain("It used 900 tokens");
    expect(result.usage.totalTokens).toBe(30 + 900);
  });

  test("a run cannot see or wait on another run's children", async () => {
    const set = tools();
    const ctx = (runId: string) => ({ runId, signal: new AbortController().signal });
    const started = await set.call("subagent.spawn", { instruction: "echo:mine", async: true }, ctx("run-1"));
    const id = (started.structuredContent as { id: string }).id;
    const foreign = await set.call("subagent.wait", { id }, ctx("run-2"));
    expect(foreign.isError).toBe(true);
    expect(foreign.text).toContain(`no subagent with id "${id}"`);
    const own = await set.call("subagent.wait", { id }, ctx("run-1"));
    expect(own.isError).toBe(false);
    expect(own.usage?.totalTokens).toBe(15);
  });

  test("a scope chain narrows tools: every scope must allow a tool", async () => {
    const scoped = new ScopedToolSet(tools(), [{ allow: ["subagent.*"] }, { allow: ["subagent.spawn", "subagent.wait"] }]);
    expect((await scoped.list()).map((t) => t.name)).toEqual(["subagent.spawn", "subagent.wait"]);
    const refused = await scoped.call("subagent.list", {}, { runId: "r", signal: new AbortController().signal });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toContain("outside this subagent's scope");
  });
});
