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
      test(`${mode}${stream ? ", streamed" : ""}: kept in the assistant turn for the next request, never in the answer, a tool or a text event; reasoning deltas, streamed or not`, async () => {
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
        expect(JSON.stringify(events.filter((e) => e.type !== "reasoning-delta"))).not.toContain("secret");
        // Streamed as it comes, or whole once the response is in: a run that is not streamed shows its reasoning too.
        const reasoning = events.flatMap((e) => (e.type === "reasoning-delta" ? [`${e.turn}:${e.delta}`] : []));
        expect(reasoning).toEqual(["1:secret A", "2:secret B"]);
        // Each before its turn's end, as a streamed turn's deltas are.
        const order = events.map((e) => e.type).filter((t) => t === "reasoning-delta" || t === "model-end");
        expect(order).toEqual(["reasoning-delta", "model-end", "reasoning-delta", "model-end"]);
        expect(tools.calls).toHaveLength(1);
        expect(JSON.stringify(tools.calls)).not.toContain("secret");
      });
});
