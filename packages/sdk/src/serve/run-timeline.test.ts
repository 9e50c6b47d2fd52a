/** A run's timeline as its detail keeps it: each turn's time, words and retries, re-asks, the step that failed; bounded and masked. */
import { expect, test } from "bun:test";
import type { RunEvent } from "../loop/events.ts";
import { applyRunEvent, emptyRunDetail } from "./run-detail.ts";
import { RUN_TIMELINE_LIMITS } from "./run-timeline.ts";

const usage = { inputTokens: 5, outputTokens: 5, totalTokens: 10 };
const r = "run-1";

test("turns keep their start, duration, text and retries; a turn after a plain answer is a re-ask; a failure names its step", () => {
  const d = emptyRunDetail();
  const events: RunEvent[] = [
    { type: "model-start", runId: r, turn: 1, messages: 2 },
    { type: "model-retry", runId: r, turn: 1, retry: 1, delayMs: 10, status: 503, reason: "returned HTTP 503: busy" },
    { type: "reasoning-delta", runId: r, turn: 1, delta: "thinking" },
    { type: "model-end", runId: r, turn: 1, usage, finishReason: "stop", toolCalls: 0, text: "not json" },
    { type: "model-start", runId: r, turn: 2, messages: 4 },
    { type: "model-end", runId: r, turn: 2, usage, finishReason: "stop", toolCalls: 0, text: "still not json" },
    { type: "model-start", runId: r, turn: 3, messages: 6 },
    { type: "model-end", runId: r, turn: 3, usage, finishReason: "stop", toolCalls: 0, text: "{oops" },
    {
      type: "run-end",
      runId: r,
      usage,
      turns: 3,
      toolCalls: 0,
      stopReason: "failed",
      durationMs: 30,
      error: "E_RUN_FAILED",
      reason: "output-invalid",
      message: "the model's final answer did not match the output schema after 2 retries: …",
    },
  ];
  for (const e of events) applyRunEvent(d, e);
  expect(d.turns.map((t) => [t.turn, t.text, t.reask])).toEqual([
    [1, "not json", undefined],
    [2, "still not json", 1],
    [3, "{oops", 2],
  ]);
  expect(d.turns[0]?.reasoning).toBe("thinking");
  expect(d.turns[0]?.retries).toEqual([{ retry: 1, delayMs: 10, status: 503, reason: "returned HTTP 503: busy" }]);
  expect(typeof d.turns[0]?.startedAt).toBe("string");
  expect(d.turns[0]?.durationMs).toBeGreaterThanOrEqual(0);
  expect(d.failure).toMatchObject({ kind: "model", turn: 3, code: "E_RUN_FAILED", reason: "output-invalid" });
  expect(d.failure?.message).toContain("after 2 retries");
});

test("a run that fails while a tool runs names that call as the failed step", () => {
  const d = emptyRunDetail();
  applyRunEvent(d, { type: "model-start", runId: r, turn: 1, messages: 2 });
  applyRunEvent(d, { type: "model-end", runId: r, turn: 1, usage, finishReason: "tool-calls", toolCalls: 1 });
  applyRunEvent(d, {
    type: "tool-call-start",
    runId: r,
    turn: 1,
    toolCallId: "c1",
    name: "s__slow",
    qualifiedName: "s/slow",
    argumentsSize: 2,
    arguments: {},
  });
  applyRunEvent(d, {
    type: "run-end",
    runId: r,
    usage,
    turns: 1,
    toolCalls: 1,
    stopReason: "deadline",
    durationMs: 9,
    error: "E_BUDGET_DEADLINE",
    message: "deadline of 5 s passed",
  });
  expect(d.failure).toMatchObject({ kind: "tool", turn: 1, toolCallId: "c1", tool: "s__slow", code: "E_BUDGET_DEADLINE" });
});

test("streamed text is kept masked as it comes; a spawn call names its subagent; the words of a run are bounded", () => {
  const d = emptyRunDetail();
  applyRunEvent(d, { type: "model-start", runId: r, turn: 1, messages: 2 });
  applyRunEvent(d, { type: "text-delta", runId: r, turn: 1, delta: "key: sk-abcdefghijklmnop" });
  applyRunEvent(d, { type: "text-delta", runId: r, turn: 1, delta: "qrstuvwxyz0123 done" });
  expect(d.turns[0]?.text).not.toContain("abcdefghijklmnop");
  applyRunEvent(d, { type: "model-end", runId: r, turn: 1, usage, finishReason: "tool-calls", toolCalls: 1 });
  applyRunEvent(d, {
    type: "tool-call-start",
    runId: r,
    turn: 1,
    toolCallId: "s1",
    name: "subagent_spawn",
    argumentsSize: 2,
    arguments: {},
  });
  applyRunEvent(d, {
    type: "tool-call-end",
    runId: r,
    turn: 1,
    toolCallId: "s1",
    name: "subagent_spawn",
    isError: false,
    size: 30,
    durationMs: 3,
    summary: "Started subagent sa-7.",
  });
  expect(d.turns[0]?.toolCalls[0]?.subagent).toBe("sa-7");
  const words = "w".repeat(RUN_TIMELINE_LIMITS.textChars);
  for (let turn = 2; turn <= 30; turn++) {
    applyRunEvent(d, { type: "model-start", runId: r, turn, messages: 2 });
    applyRunEvent(d, { type: "model-end", runId: r, turn, usage, finishReason: "tool-calls", toolCalls: 0, text: words });
  }
  expect(d.textChars).toBeLessThanOrEqual(RUN_TIMELINE_LIMITS.runTextChars);
  expect(d.textDropped).toBeGreaterThan(0);
  expect(d.turns.at(-1)?.text).toBeUndefined();
  expect(d.turns.at(-1)?.durationMs).toBeGreaterThanOrEqual(0);
});

test("a run that is not streamed keeps each turn's reasoning summary too: masked where the loop records it, bounded", async () => {
  const { runLoop } = await import("../loop/run-loop.ts");
  const { scriptedModel, STEP_USAGE } = await import("../loop/__fixtures__/scripted-model.ts");
  const { memoryToolSet } = await import("../loop/__fixtures__/memory-tools.ts");
  const long = `Bearer sk-live-0123456789abcdef0123456789 ${"then more thought ".repeat(100)}`;
  const model = scriptedModel([
    {
      content: [
        { type: "reasoning", provider: "scripted", text: long, signature: "sig" },
        { type: "text", text: "done" },
      ],
      finishReason: "stop",
      usage: STEP_USAGE,
    },
  ]);
  const d = emptyRunDetail();
  await runLoop({ model, tools: memoryToolSet([]), input: "go", runId: r, stream: false, onEvent: (e) => applyRunEvent(d, e) });
  const kept = d.turns[0]?.reasoning ?? "";
  expect(kept.startsWith("Bearer ")).toBe(true);
  expect(kept).not.toContain("sk-live-0123456789abcdef0123456789");
  expect(kept).toContain("then more thought");
  expect(kept.length).toBeLessThanOrEqual(RUN_TIMELINE_LIMITS.reasoningChars);
  expect(d.turns[0]?.text).toBe("done");
});
