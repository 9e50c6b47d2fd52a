/**
 * `agent.stream()` over a scripted in-memory model: the events and their order, the finish for a result
 * and for a failure, the back-pressure a slow consumer puts on the run, and cancellation by signal and
 * by leaving the loop. The same API over the real adapters and each dialect's fake gateway is tested in
 * `packages/adapters/src/agent-stream-run.test.ts`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { callTools, hangUntilAborted, reply, scriptedModel, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import type { ToolSet } from "../../loop/tools.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentStreamEvent } from "./agent-stream.ts";
import { type Agent, createAgent } from "../create-agent.ts";

const agents: Agent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) await a.close();
});
const agentWith = (steps: Step[], tools: ToolSet): Agent => {
  const agent = createAgent({ model: scriptedModel(steps), tools });
  agents.push(agent);
  return agent;
};

/** Resolves once `check` holds (looked at every few ms: the buffer has no change event of its own). */
async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await Bun.sleep(5);
  }
}

describe("agent.stream", () => {
  test("yields the run's events in order, named noun-start/-delta/-end, and ends with finish carrying the result", async () => {
    const tools = memoryToolSet([{ name: "kb/lookup", run: (a) => `found ${String(a.q)}` }]);
    const agent = agentWith([callTools([["kb__lookup", { q: "cats" }]]), reply("the answer")], tools);
    const stream = agent.stream("go", { runId: "s1" });
    const events: AgentStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toEqual([
      "run-start",
      "model-start",
      "model-end",
      "tool-call-start",
      "tool-call-end",
      "model-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "text-delta",
      "model-end",
      "finish",
    ]);
    expect(events.every((e) => e.runId === "s1")).toBe(true);
    expect(events[3]).toMatchObject({ name: "kb__lookup", qualifiedName: "kb/lookup", arguments: { q: "cats" }, turn: 1 });
    expect(events[4]).toMatchObject({ isError: false, summary: "found cats", size: 10 });
    expect(events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("")).toBe("the answer");
    expect(events.at(-1)).toMatchObject({
      type: "finish",
      status: "ok",
      text: "the answer",
      turns: 2,
      toolCalls: 1,
      stopReason: "final",
      usage: { totalTokens: 30 },
    });
    expect((await stream.result).text).toBe("the answer");
  });

  test("a failed run ends with a finish naming the error; the stream never throws, result rejects typed", async () => {
    const agent = agentWith([reply("GIVE_UP: cannot reach the data")], memoryToolSet([]));
    const stream = agent.stream("go");
    const events: AgentStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    const finish = events.at(-1);
    expect(finish).toMatchObject({
      type: "finish",
      status: "failed",
      error: { code: "E_RUN_FAILED", reason: "gave-up", message: "the model gave up: cannot reach the data" },
      turns: 1,
      stopReason: "failed",
    });
    const error = await stream.result.catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_RUN_FAILED");
  });

  test("a slow consumer holds the run: no further model request or tool call while the buffer is full", async () => {
    const tools = memoryToolSet([{ name: "kb/lookup", run: () => "x" }]);
    const model = [callTools([["kb__lookup", {}]]), callTools([["kb__lookup", {}]]), callTools([["kb__lookup", {}]]), reply("done")];
    const agent = agentWith(model, tools);
    const stream = agent.stream("go", { highWaterMark: 2 });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "run-start" });
    await until(() => stream.buffered >= 2, "the buffer fills");
    // Give a run that ignored the consumer every chance to race ahead; one that waits cannot move.
    await Bun.sleep(300);
    expect(stream.buffered).toBe(2);
    expect(tools.calls).toHaveLength(0);
    const rest: AgentStreamEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(tools.calls).toHaveLength(3);
    expect(rest.at(-1)).toMatchObject({ type: "finish", status: "ok", text: "done", toolCalls: 3 });
  });

  test("leaving the loop cancels the run: the tool call in flight is aborted before return() resolves", async () => {
    let toolSignal: AbortSignal | undefined;
    const tools = memoryToolSet([
      {
        name: "kb/slow",
        run: (_a, ctx) =>
          new Promise((_resolve, reject) => {
            toolSignal = ctx.signal;
            ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
          }),
      },
    ]);
    const agent = agentWith([callTools([["kb__slow", {}]]), reply("never")], tools);
    const stream = agent.stream("go");
    for await (const e of stream) if (e.type === "tool-call-start") break;
    expect(toolSignal?.aborted).toBe(true);
    const error = await stream.result.catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_ABORTED");
    expect(agent.runIds()).toEqual([]);
  });

  test("the caller's signal cancels the run: finish says cancelled", async () => {
    let modelSignal: AbortSignal | undefined;
    const agent = agentWith([hangUntilAborted((s) => (modelSignal = s))], memoryToolSet([]));
    const controller = new AbortController();
    const events: AgentStreamEvent[] = [];
    for await (const e of agent.stream("go", { signal: controller.signal })) {
      events.push(e);
      if (e.type === "model-start") {
        await until(() => modelSignal !== undefined, "the model request is in flight");
        controller.abort();
      }
    }
    expect(modelSignal?.aborted).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "finish", status: "cancelled", error: { code: "E_ABORTED" }, stopReason: "aborted" });
  });

  test("a stream is iterated once", () => {
    const agent = agentWith([reply("x")], memoryToolSet([]));
    const stream = agent.stream("go");
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow("iterated once");
    return stream.result;
  });
});
