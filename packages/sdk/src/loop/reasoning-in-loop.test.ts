import { describe, expect, test } from "bun:test";
import { memoryToolSet } from "./__fixtures__/memory-tools.ts";
import { scriptedModel, STEP_USAGE } from "./__fixtures__/scripted-model.ts";
import type { RunEvent } from "./events.ts";
import type { ModelResponse, ReasoningPart } from "../model/language-model.ts";
import { runLoop } from "./run-loop.ts";

const thought = (text: string): ReasoningPart => ({ type: "reasoning", provider: "scripted", text, signature: `sig:${text}` });
const step = (reasoning: string, rest: ModelResponse["content"], finishReason: ModelResponse["finishReason"]): ModelResponse => ({
  content: [thought(reasoning), ...rest],
  finishReason,
  usage: STEP_USAGE,
});

describe("reasoning in the loop", () => {
  for (const mode of ["native", "json-action"] as const)
    for (const stream of [false, true])
      test(`${mode}${stream ? ", streamed" : ""}: kept in the assistant turn for the next request, never in the answer, a tool or a text event; streamed as reasoning deltas`, async () => {
        const tools = memoryToolSet([{ name: "fs/read", run: (a) => `read ${JSON.stringify(a)}` }]);
        const call =
          mode === "native"
            ? step("secret A", [{ type: "tool-call", toolCallId: "c1", toolName: "fs__read", input: { path: "x" } }], "tool-calls")
            : step("secret A", [{ type: "text", text: '{"action":"tool","tool":"fs/read","arguments":{"path":"x"}}' }], "stop");
        const final =
          mode === "native"
            ? step("secret B", [{ type: "text", text: "done" }], "stop")
            : step("secret B", [{ type: "text", text: '{"action":"final","result":"done"}' }], "stop");
        const model = scriptedModel([call, final], { supportsTools: mode === "native" });
        const events: RunEvent[] = [];
        const result = await runLoop({ model, tools, input: "go", runId: "r", stream, onEvent: (e) => events.push(e) });
        expect(result.text).toBe("done");
        const assistant = model.requests[1]?.messages.find((m) => m.role === "assistant");
        expect(assistant?.role === "assistant" && assistant.content[0]).toEqual(thought("secret A"));
        // Outside the reasoning's own fields (its deltas, each turn's summary on model-end), no event carries it.
        const elsewhere = events
          .filter((e) => e.type !== "reasoning-delta")
          .map((e) => (e.type === "model-end" ? { ...e, reasoning: undefined } : e));
        expect(JSON.stringify(elsewhere)).not.toContain("secret");
        const reasoning = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.delta] : []));
        expect(reasoning).toEqual(stream ? ["secret A", "secret B"] : []);
        // Streamed or not, each turn's end carries its reasoning summary (the timeline of a non-streamed run keeps it).
        expect(events.flatMap((e) => (e.type === "model-end" ? [e.reasoning] : []))).toEqual(["secret A", "secret B"]);
        expect(tools.calls).toHaveLength(1);
        expect(JSON.stringify(tools.calls)).not.toContain("secret");
      });
});
