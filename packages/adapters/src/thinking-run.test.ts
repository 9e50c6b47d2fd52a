/**
 * Proof that reasoning survives tool turns: a thinking-enabled, tool-using, multi-turn run of the agentic
 * loop against each fake gateway, whose API rules refuse reasoning that comes back changed or dropped;
 * and a conversation that leaves one model instance (through JSON, as a checkpoint or a subagent hand-off
 * carries it) and continues in another.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { ModelMessage } from "@agentd/sdk/model";
import { type RunEvent, runLoop } from "@agentd/sdk/loop";
import type { Dialect, FakeGatewayOptions } from "@agentd/testkit";
import { closeAll, gatewayFor, modelFor, THINKING, weatherTools } from "./__fixtures__/run-support.ts";

afterEach(closeAll);

const DIALECTS: Dialect[] = ["anthropic", "gemini", "openai", "responses"];
const SECRET_THOUGHT = "private chain of thought";

/** Each dialect's API rule for reasoning sent back, switched on. */
const RULES: Partial<FakeGatewayOptions> = { reasoningPassBack: "require" };

const script = [
  { reasoning: `${SECRET_THOUGHT}: weather first.`, toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
  { reasoning: `${SECRET_THOUGHT}: now the time.`, toolCalls: [{ name: "get_time", arguments: { city: "Paris" } }] },
  { reasoning: `${SECRET_THOUGHT}: done.`, text: "Paris: 21°C and clear at noon." },
];

/** Whether the reasoning of the previous assistant turn came back in a request, in the dialect's shape. */
function reasoningCameBack(dialect: Dialect, body: Record<string, unknown>): boolean {
  if (dialect === "anthropic") {
    const messages = body.messages as Array<{ role: string; content: Array<{ type: string }> }>;
    return messages.filter((m) => m.role === "assistant").every((m) => m.content[0]?.type === "thinking");
  }
  if (dialect === "gemini") {
    const contents = body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    return contents
      .filter((c) => c.role === "model")
      .every((c) => typeof c.parts.find((p) => p.functionCall)?.thoughtSignature === "string");
  }
  if (dialect === "responses") {
    // Each function call goes back after the reasoning item it was issued with, encrypted content and all.
    const input = body.input as Array<Record<string, unknown>>;
    const calls = input.filter((item) => item.type === "function_call");
    return (
      calls.length > 0 &&
      calls.every((call) => {
        const before = input.slice(0, input.indexOf(call));
        return before.some((item) => item.type === "reasoning" && typeof item.encrypted_content === "string");
      })
    );
  }
  const messages = body.messages as Array<Record<string, unknown>>;
  return messages.filter((m) => m.role === "assistant").every((m) => typeof m.reasoning_content === "string");
}

describe("a thinking, tool-using run keeps its reasoning across turns", () => {
  for (const dialect of DIALECTS)
    for (const stream of [false, true])
      test(`${dialect}${stream ? ", streamed" : ""}: three turns, reasoning back unchanged, never in the answer, a tool or the text events`, async () => {
        const gateway = await gatewayFor({ dialect, script, ...RULES });
        const tools = weatherTools();
        const events: RunEvent[] = [];
        const result = await runLoop({
          model: modelFor(dialect, gateway, { thinking: THINKING[dialect] }),
          tools,
          input: "Weather and time in Paris?",
          runId: `run-${dialect}`,
          stream,
          onEvent: (e) => events.push(e),
        });
        expect(result.text).toBe("Paris: 21°C and clear at noon.");
        expect(gateway.requests.map((r) => r.rejected)).toEqual([undefined, undefined, undefined]);
        for (const request of gateway.requests.slice(1))
          expect(reasoningCameBack(dialect, request.body as Record<string, unknown>)).toBe(true);
        expect(JSON.stringify(tools.calls)).not.toContain(SECRET_THOUGHT);
        expect(JSON.stringify(events.filter((e) => e.type !== "reasoning-delta"))).not.toContain(SECRET_THOUGHT);
        // The reasoning arrives as reasoning deltas (never text deltas) of the turn that thought it: as it streams,
        // or whole once a response that was not streamed is in.
        const thought = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.delta] : [])).join("");
        for (const s of script) expect(thought).toContain(s.reasoning);
        expect(result.usage.reasoningTokens).toBeGreaterThan(0);
        expect(result.usage.outputTokens).toBeGreaterThan(result.usage.reasoningTokens as number);
      });
});

describe("reasoning lives in the conversation, not in a model instance", () => {
  for (const dialect of DIALECTS)
    test(`${dialect}: a conversation carried through JSON continues on a fresh model instance`, async () => {
      const gateway = await gatewayFor({ dialect, script, ...RULES });
      const first = modelFor(dialect, gateway, { thinking: THINKING[dialect] });
      const messages: ModelMessage[] = [{ role: "user", content: "Weather and time in Paris?" }];
      const tools = [
        { name: "get_weather", inputSchema: { type: "object" } },
        { name: "get_time", inputSchema: { type: "object" } },
      ];
      const turn = await first.generate({ messages, tools });
      const call = turn.content.find((p) => p.type === "tool-call");
      expect(call?.type).toBe("tool-call");
      if (call?.type !== "tool-call") throw new Error("expected a tool call");
      messages.push({ role: "assistant", content: turn.content });
      messages.push({
        role: "tool",
        content: [{ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: "21°C" }],
      });
      const carried = JSON.parse(JSON.stringify(messages)) as ModelMessage[];
      const second = modelFor(dialect, gateway, { thinking: THINKING[dialect] });
      await second.generate({ messages: carried, tools });
      expect(gateway.requests.map((r) => r.rejected)).toEqual([undefined, undefined]);
      expect(reasoningCameBack(dialect, gateway.requests[1]?.body as Record<string, unknown>)).toBe(true);
    });

  test("the gateway's rules bite: dropping the reasoning is refused in every dialect", async () => {
    for (const dialect of DIALECTS) {
      const gateway = await gatewayFor({ dialect, script, ...RULES });
      const model = modelFor(dialect, gateway, { thinking: THINKING[dialect] });
      const messages: ModelMessage[] = [{ role: "user", content: "Weather?" }];
      const turn = await model.generate({ messages, tools: [{ name: "get_weather", inputSchema: { type: "object" } }] });
      const stripped = turn.content
        .filter((p) => p.type !== "reasoning")
        .map((p) => (p.type === "tool-call" ? { ...p, signature: undefined } : p));
      const call = stripped.find((p) => p.type === "tool-call");
      if (call?.type !== "tool-call") throw new Error("expected a tool call");
      messages.push(
        { role: "assistant", content: stripped },
        { role: "tool", content: [{ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: "x" }] },
      );
      const error = await model.generate({ messages, tools: [{ name: "get_weather", inputSchema: { type: "object" } }] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String((error as Error)?.message)).toContain("400");
    }
  });
});
