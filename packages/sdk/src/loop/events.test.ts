import { describe, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { memoryToolSet } from "./__fixtures__/memory-tools.ts";
import { callTools, reply, scriptedModel } from "./__fixtures__/scripted-model.ts";
import { type RunEvent, SUMMARY_CHARS } from "./events.ts";
import { runLoop } from "./run-loop.ts";

const BIG = "PAYLOAD-".repeat(2000);
const tools = () =>
  memoryToolSet([
    { name: "kb/lookup", run: () => BIG },
    { name: "kb/login", run: () => ({ text: "denied", isError: true }) },
  ]);

describe("run events and telemetry", () => {
  test("events come in order, with sizes and durations; the payload only as a short summary, arguments masked", async () => {
    const events: RunEvent[] = [];
    const model = scriptedModel([callTools([["kb__lookup", { q: "x" }]]), reply("answer")]);
    await runLoop({ model, tools: tools(), input: "go", runId: "e1", onEvent: (e) => events.push(e) });
    expect(events.map((e) => e.type)).toEqual([
      "run-start",
      "model-request",
      "model-response",
      "tool-call",
      "tool-result",
      "model-request",
      "model-response",
      "run-end",
    ]);
    expect(events[0]).toEqual({ type: "run-start", runId: "e1", provider: "scripted", model: "scripted-1", tools: 2, mode: "native" });
    expect(events[1]).toMatchObject({ turn: 1, messages: 2 });
    expect(events[2]).toMatchObject({ turn: 1, finishReason: "tool-calls", toolCalls: 1, usage: { inputTokens: 10 } });
    expect(events[3]).toMatchObject({
      name: "kb__lookup",
      qualifiedName: "kb/lookup",
      argumentsSize: '{"q":"x"}'.length,
      turn: 1,
      arguments: { q: "x" },
    });
    expect(events[4]).toMatchObject({ name: "kb__lookup", isError: false, size: BIG.length });
    const summary = (events[4] as { summary: string }).summary;
    expect(summary.length).toBe(SUMMARY_CHARS);
    expect(BIG.startsWith(summary.slice(0, -1))).toBe(true);
    expect(typeof (events[4] as { durationMs: number }).durationMs).toBe("number");
    expect(events[7]).toMatchObject({ type: "run-end", turns: 2, toolCalls: 1, stopReason: "final", usage: { totalTokens: 30 } });
    expect(JSON.stringify(events).length).toBeLessThan(2000);
  });

  test("a tool call's arguments and result summary have credentials masked; telemetry keeps both out of info records", async () => {
    const events: RunEvent[] = [];
    const logger = memoryLogger();
    const secretTools = memoryToolSet([{ name: "kb/login", run: () => "logged in with Bearer abcdefghijklmnop0123" }]);
    const model = scriptedModel([
      callTools([["kb__login", { user: "ann", password: "hunter2hunter2", note: "key sk-abcdefghijklmnop0123" }]]),
      reply("ok"),
    ]);
    await runLoop({ model, tools: secretTools, input: "go", runId: "e6", logger, onEvent: (e) => events.push(e) });
    const call = events.find((e) => e.type === "tool-call");
    expect(call).toMatchObject({ arguments: { user: "ann", password: "[redacted]", note: "key [redacted]" } });
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ summary: "logged in with Bearer [redacted]" });
    const text = JSON.stringify([events, logger.records]);
    for (const secret of ["hunter2hunter2", "sk-abcdefghijklmnop0123", "abcdefghijklmnop0123"]) expect(text).not.toContain(secret);
    const info = logger.records.filter((r) => r.level !== "debug");
    expect(info.some((r) => "arguments" in r || "summary" in r)).toBe(false);
    expect(logger.records.find((r) => r.event === "tool.call.arguments")).toMatchObject({
      level: "debug",
      arguments: { user: "ann", password: "[redacted]" },
    });
  });

  test("stream: true uses model.stream and emits text deltas between request and response", async () => {
    const events: RunEvent[] = [];
    const model = scriptedModel([callTools([["kb__lookup", {}]]), reply("streamed answer")]);
    const r = await runLoop({ model, tools: tools(), input: "go", runId: "e2", stream: true, onEvent: (e) => events.push(e) });
    expect(r.text).toBe("streamed answer");
    expect(r.toolCalls).toBe(1);
    expect(model.streamCalls).toBe(2);
    expect(model.generateCalls).toBe(0);
    const lastTurn = events.slice(events.findLastIndex((e) => e.type === "model-request"));
    expect(lastTurn.map((e) => e.type)).toEqual([
      "model-request",
      ...Array(Math.ceil("streamed answer".length / 3)).fill("text-delta"),
      "model-response",
      "run-end",
    ]);
    const deltas = lastTurn.flatMap((e) => (e.type === "text-delta" ? [e.delta] : []));
    expect(deltas.join("")).toBe("streamed answer");
  });

  test("telemetry: run.start, model.request, tool.call, tool.result, run.end with the runId, no big payloads", async () => {
    const logger = memoryLogger();
    const model = scriptedModel([
      callTools([
        ["kb__lookup", { q: "x" }],
        ["kb__login", { apiKey: "sk-secret-123" }],
      ]),
      reply("done"),
    ]);
    await runLoop({ model, tools: tools(), input: "go", runId: "e3", logger });
    const names = logger.records.map((r) => r.event);
    for (const n of ["run.start", "model.request", "tool.call", "tool.result", "run.end"]) expect(names).toContain(n);
    expect(logger.records.every((r) => r.runId === "e3")).toBe(true);
    const text = JSON.stringify(logger.records);
    expect(text).not.toContain("PAYLOAD");
    expect(text).not.toContain("sk-secret-123");
    const failed = logger.records.find((r) => r.event === "tool.result" && r.isError === true);
    expect(failed).toMatchObject({ name: "kb__login", qualifiedName: "kb/login", error: "denied" });
    expect(logger.records.at(-1)).toMatchObject({ event: "run.end", level: "info", stopReason: "final", turns: 2 });
  });

  test("a listener that throws does not break the run", async () => {
    const logger = memoryLogger();
    const model = scriptedModel([reply("fine")]);
    const r = await runLoop({
      model,
      tools: tools(),
      input: "go",
      runId: "e4",
      logger,
      onEvent: () => {
        throw new Error("listener bug");
      },
    });
    expect(r.text).toBe("fine");
    expect(logger.records.some((x) => x.event === "run.listener_error")).toBe(true);
  });

  test("budget warnings are emitted once a limit passes 80%", async () => {
    const events: RunEvent[] = [];
    const model = scriptedModel([callTools([["kb__lookup", {}]]), callTools([["kb__lookup", {}]]), reply("ok")]);
    await runLoop({ model, tools: tools(), input: "go", runId: "e5", limits: { maxTurns: 3 }, onEvent: (e) => events.push(e) });
    const warnings = events.filter((e) => e.type === "budget");
    expect(warnings).toEqual([expect.objectContaining({ kind: "turns", used: 3, limit: 3 })]);
  });
});

test("a model turn's event carries its text masked, and a retry of its request is a step of the turn", async () => {
  const events: RunEvent[] = [];
  const model = scriptedModel([
    (request) => {
      request.onRetry?.({ retry: 1, delayMs: 5, status: 503, reason: "returned HTTP 503: busy" });
      return reply("the key is sk-abcdefghijklmnopqrstuvwxyz0123");
    },
  ]);
  await runLoop({ model, tools: tools(), input: "go", runId: "e9", onEvent: (e) => events.push(e) });
  expect(events.map((e) => e.type)).toEqual(["run-start", "model-request", "model-retry", "model-response", "run-end"]);
  const response = events.find((e) => e.type === "model-response");
  expect(response?.type === "model-response" && response.text).toStartWith("the key is ");
  expect(JSON.stringify(response)).not.toContain("abcdefghijklmnop");
  expect(events[2]).toMatchObject({ type: "model-retry", turn: 1, retry: 1, status: 503 });
});
