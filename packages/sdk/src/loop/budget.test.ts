import { describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { barrier, memoryToolSet } from "./__fixtures__/memory-tools.ts";
import { callTools, hangUntilAborted, reply, scriptedModel } from "./__fixtures__/scripted-model.ts";
import type { RunEvent } from "./events.ts";
import { runLoop } from "./run-loop.ts";

const echo = () => memoryToolSet([{ name: "t/echo", run: (a) => JSON.stringify(a) }]);

/** Await a rejection and return it as an AgentdError (fails the test if it resolves or is another kind). */
async function rejection(p: Promise<unknown>): Promise<AgentdError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(AgentdError.isInstance(e)).toBe(true);
  return e as AgentdError;
}

describe("budgets", () => {
  test("max turns: rejects E_BUDGET_TURNS and does not run tools no turn is left to read", async () => {
    const tools = echo();
    const model = scriptedModel([1, 2, 3].map((i) => callTools([["t__echo", { i }]])));
    const e = await rejection(runLoop({ model, tools, input: "go", runId: "r1", limits: { maxTurns: 3 } }));
    expect(e.code).toBe("E_BUDGET_TURNS");
    expect(e.options.data).toEqual({
      usage: { inputTokens: 30, outputTokens: 15, totalTokens: 45 },
      turns: 3,
      runId: "r1",
      stopReason: "max-turns",
    });
    expect(tools.calls.map((c) => c.args)).toEqual([{ i: 1 }, { i: 2 }]);
  });

  test("max tokens: input + output summed over the run, checked after each response", async () => {
    const usage = { inputTokens: 40, outputTokens: 20, totalTokens: 60 };
    const model = scriptedModel([callTools([["t__echo", {}]], usage), callTools([["t__echo", {}]], usage), reply("done")]);
    const e = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r2", limits: { maxTokens: 100 } }));
    expect(e.code).toBe("E_BUDGET_TOKENS");
    expect(e.options.data).toMatchObject({ turns: 2, stopReason: "max-tokens", usage: { inputTokens: 80, outputTokens: 40 } });
  });

  test("max tokens counts usage a tool reports (a subagent's model usage)", async () => {
    const tools = memoryToolSet([
      {
        name: "sub/agent",
        run: () => ({ text: "child done", isError: false, usage: { inputTokens: 500, outputTokens: 100, totalTokens: 600 } }),
      },
    ]);
    const model = scriptedModel([callTools([["sub__agent", {}]]), reply("done")]);
    const e = await rejection(runLoop({ model, tools, input: "go", runId: "r3", limits: { maxTokens: 300 } }));
    expect(e.code).toBe("E_BUDGET_TOKENS");
    expect(e.options.data).toMatchObject({ turns: 1, usage: { inputTokens: 510, outputTokens: 105, totalTokens: 615 } });
  });

  test("max cost with prices: rejects E_BUDGET_COST", async () => {
    const usage = { inputTokens: 50_000, outputTokens: 10_000, totalTokens: 60_000 }; // $0.50 + $0.30 a turn
    const model = scriptedModel([callTools([["t__echo", {}]], usage), callTools([["t__echo", {}]], usage), reply("done")]);
    const events: RunEvent[] = [];
    const e = await rejection(
      runLoop({
        model,
        tools: echo(),
        input: "go",
        runId: "r4",
        limits: { maxCostUsd: 1 },
        prices: { inputPerMTokUsd: 10, outputPerMTokUsd: 30 },
        onEvent: (ev) => events.push(ev),
      }),
    );
    expect(e.code).toBe("E_BUDGET_COST");
    expect(e.options.data).toMatchObject({ turns: 2, stopReason: "max-cost" });
    expect(events.filter((ev) => ev.type === "budget-warning")).toEqual([expect.objectContaining({ kind: "cost", used: 0.8, limit: 1 })]);
    expect(events.at(-1)).toMatchObject({ type: "run-end", stopReason: "max-cost", error: "E_BUDGET_COST" });
  });

  test("max cost without prices is a config error, before any model request", async () => {
    const model = scriptedModel([reply("x")]);
    const e = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r5", limits: { maxCostUsd: 1 } }));
    expect(e.code).toBe("E_CONFIG_INVALID");
    expect(e.message).toContain("prices");
    expect(model.requests.length).toBe(0);
    const bad = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r5", limits: { maxTurns: 0 } }));
    expect(bad.code).toBe("E_CONFIG_INVALID");
  });

  test("deadline aborts the model request in flight", async () => {
    let modelSignal: AbortSignal | undefined;
    const model = scriptedModel([hangUntilAborted((s) => (modelSignal = s))]);
    const e = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r6", limits: { deadlineMs: 30 } }));
    expect(e.code).toBe("E_BUDGET_DEADLINE");
    // The message names the step in flight.
    expect(e.message).toBe("deadline exceeded: the run took longer than 30 ms, waiting for the model (turn 1)");
    expect(e.options.data).toEqual({
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      turns: 1,
      runId: "r6",
      stopReason: "deadline",
    });
    expect(modelSignal?.aborted).toBe(true);
  });

  test("deadline aborts a streamed model request in flight", async () => {
    let modelSignal: AbortSignal | undefined;
    const model = scriptedModel([hangUntilAborted((s) => (modelSignal = s))]);
    const e = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r6s", stream: true, limits: { deadlineMs: 30 } }));
    expect(e.code).toBe("E_BUDGET_DEADLINE");
    expect(model.streamCalls).toBe(1);
    expect(modelSignal?.aborted).toBe(true);
  });

  test("deadline aborts a slow tool call in flight: the tool's signal is aborted", async () => {
    const started = barrier(1);
    let toolSignal: AbortSignal | undefined;
    const tools = memoryToolSet([
      {
        name: "slow/work",
        run: (_a, ctx) =>
          new Promise<string>((_resolve, reject) => {
            toolSignal = ctx.signal;
            void started.arrive();
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          }),
      },
    ]);
    const model = scriptedModel([callTools([["slow__work", {}]]), reply("never")]);
    const e = await rejection(runLoop({ model, tools, input: "go", runId: "r7", limits: { deadlineMs: 60 } }));
    expect(e.code).toBe("E_BUDGET_DEADLINE");
    expect(e.message).toBe("deadline exceeded: the run took longer than 60 ms, in tool slow/work");
    expect(started.arrived()).toBe(1);
    expect(toolSignal?.aborted).toBe(true);
    expect(AgentdError.isInstance(toolSignal?.reason) && toolSignal.reason.code).toBe("E_BUDGET_DEADLINE");
    expect(model.requests.length).toBe(1);
  });

  test("a tool that ignores its signal cannot hold the run past the deadline", async () => {
    const tools = memoryToolSet([{ name: "stuck/tool", run: () => new Promise<string>(() => {}) }]);
    const model = scriptedModel([callTools([["stuck__tool", {}]])]);
    const e = await rejection(runLoop({ model, tools, input: "go", runId: "r8", limits: { deadlineMs: 40 } }));
    expect(e.code).toBe("E_BUDGET_DEADLINE");
    expect(tools.calls[0]?.ctx.signal.aborted).toBe(true);
  });

  test("a 30-day deadline and tool timeout (past setTimeout's 2^31-1 ms) do not trip: the run completes", async () => {
    // Before the fix setTimeout clamped both to 1 ms: the run failed with E_BUDGET_DEADLINE at once.
    const DAYS_30 = 30 * 86_400_000;
    const slow = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 30));
    const tools = memoryToolSet([{ name: "t/slow", run: async (_a, ctx) => (await slow(0), ctx.signal.aborted ? "aborted" : "worked") }]);
    const model = scriptedModel([() => slow(callTools([["t__slow", {}]])), () => slow(reply("done"))]);
    const r = await runLoop({ model, tools, input: "go", runId: "r30d", limits: { deadlineMs: DAYS_30, toolTimeoutMs: DAYS_30 } });
    expect(r.text).toBe("done");
    expect(r.stopReason).toBe("final");
    expect(tools.calls.length).toBe(1);
    expect(tools.calls[0]?.ctx.signal.aborted).toBe(true); // the run's signal is released once it ended
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toContain("worked");
  });

  test("the caller's signal aborts the run with E_ABORTED, and the tool in flight", async () => {
    const controller = new AbortController();
    const tools = memoryToolSet([
      {
        name: "t/wait",
        run: (_a, ctx) => {
          controller.abort(); // the caller cancels while this call is in flight
          return new Promise<string>((_r, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("cancelled"))));
        },
      },
    ]);
    const model = scriptedModel([callTools([["t__wait", {}]]), reply("never")]);
    const e = await rejection(runLoop({ model, tools, input: "go", runId: "r9", signal: controller.signal }));
    expect(e.code).toBe("E_ABORTED");
    expect(e.options.data).toMatchObject({ turns: 1, runId: "r9", stopReason: "aborted" });
    expect(tools.calls[0]?.ctx.signal.aborted).toBe(true);
  });

  test("an already-aborted signal rejects before any model request", async () => {
    const model = scriptedModel([reply("x")]);
    const e = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r10", signal: AbortSignal.abort() }));
    expect(e.code).toBe("E_ABORTED");
    expect(model.requests.length).toBe(0);
  });

  test("an upstream model failure propagates unchanged", async () => {
    const upstream = new AgentdError("E_UPSTREAM", "model gateway unavailable after 3 attempts");
    const model = scriptedModel([
      () => {
        throw upstream;
      },
    ]);
    const events: RunEvent[] = [];
    const e = await rejection(runLoop({ model, tools: echo(), input: "go", runId: "r11", onEvent: (ev) => events.push(ev) }));
    expect(e).toBe(upstream);
    expect(events.at(-1)).toMatchObject({ type: "run-end", stopReason: "failed", error: "E_UPSTREAM" });
  });

  test("usage of the run sums every model response and tool-reported usage", async () => {
    const tools = memoryToolSet([
      { name: "sub/agent", run: () => ({ text: "ok", isError: false, usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } }) },
    ]);
    const model = scriptedModel([
      callTools([
        ["sub__agent", {}],
        ["sub__agent", {}],
      ]),
      reply("done"),
    ]);
    const r = await runLoop({ model, tools, input: "go", runId: "r12" });
    expect(r).toEqual({
      status: "finished",
      text: "done",
      usage: { inputTokens: 10 + 10 + 14, outputTokens: 5 + 5 + 6, totalTokens: 15 + 15 + 20 },
      turns: 2,
      runId: "r12",
      stopReason: "final",
      toolCalls: 2,
    });
  });
});
