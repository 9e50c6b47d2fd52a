/**
 * What is particular to the Responses adapter, against the fake Responses gateway: the request it sends
 * (flat function tools, `store: false`, `include` for encrypted reasoning, `text.format`), usage with cached
 * and reasoning tokens, and `previousResponseId: true` continuing a stored response with only the new items.
 */
import { afterEach, expect, test } from "bun:test";
import type { ModelMessage } from "@agentd/sdk/model";
import { closeAll, gatewayFor } from "../__fixtures__/run-support.ts";
import { createOpenAIResponses } from "./responses-language-model.ts";

afterEach(closeAll);

const tools = [{ name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];

test("the request: flat function tools, nothing stored, encrypted reasoning asked for, effort, JSON Schema output", async () => {
  const gateway = await gatewayFor({ dialect: "responses", script: [{ text: '{"ok":true}' }] });
  const model = createOpenAIResponses({ baseURL: gateway.url, model: "gpt-test", thinking: { effort: "low" } });
  await model.generate({
    messages: [
      { role: "system", content: "Be terse." },
      { role: "user", content: "hi" },
    ],
    tools,
    toolChoice: { type: "tool", toolName: "get_weather" },
    maxOutputTokens: 64,
    responseFormat: { type: "json", schema: { type: "object" }, name: "answer" },
  });
  const body = gateway.requests[0]?.body as Record<string, unknown>;
  expect(gateway.requests[0]?.rejected).toBeUndefined();
  expect(body).toMatchObject({
    model: "gpt-test",
    store: false,
    include: ["reasoning.encrypted_content"],
    reasoning: { effort: "low", summary: "auto" },
    tools: [{ type: "function", name: "get_weather", description: "Weather", parameters: tools[0]?.inputSchema, strict: false }],
    tool_choice: { type: "function", name: "get_weather" },
    max_output_tokens: 64,
    text: { format: { type: "json_schema", name: "answer", schema: { type: "object" } } },
    input: [
      { role: "system", content: "Be terse." },
      { role: "user", content: "hi" },
    ],
  });
  expect(body.previous_response_id).toBeUndefined();
});

test("usage: cached input tokens and reasoning output tokens are split out, counted once", async () => {
  const gateway = await gatewayFor({
    dialect: "responses",
    script: [
      { text: "a", reasoning: "think", usage: { input: 100, output: 10, reasoning: 6 } },
      { text: "b", usage: { input: 120, output: 10 } },
    ],
  });
  const model = createOpenAIResponses({ baseURL: gateway.url, model: "gpt-test" });
  const first = await model.generate({ messages: [{ role: "user", content: "a long, stable prompt ".repeat(20) }] });
  expect(first.usage).toMatchObject({ inputTokens: 100, outputTokens: 16, totalTokens: 116, reasoningTokens: 6, cacheReadTokens: 0 });
  const parts = [];
  for await (const p of model.stream({
    messages: [
      { role: "user", content: "a long, stable prompt ".repeat(20) },
      { role: "assistant", content: [{ type: "text", text: "a" }] },
      { role: "user", content: "more" },
    ],
  }))
    parts.push(p);
  const finish = parts.at(-1);
  if (finish?.type !== "finish") throw new Error("expected finish last");
  // The gateway's cache model saw the first request's prefix: part of the second's input is a cache read.
  expect(finish.usage.cacheReadTokens).toBeGreaterThan(0);
  expect(finish.usage.cacheReadTokens).toBeLessThanOrEqual(finish.usage.inputTokens);
});

for (const stream of [false, true])
  test(`previousResponseId${stream ? ", streamed" : ""}: stored, and the next request sends previous_response_id with only the new items`, async () => {
    const gateway = await gatewayFor({
      dialect: "responses",
      reasoningPassBack: "require",
      script: [
        { reasoning: "weather first", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
        { text: "21°C in Paris" },
      ],
    });
    const model = createOpenAIResponses({ baseURL: gateway.url, model: "gpt-test", previousResponseId: true, thinking: { effort: "low" } });
    const ask = async (messages: ModelMessage[]) => {
      if (!stream) return (await model.generate({ messages, tools })).content;
      const content = [];
      for await (const p of model.stream({ messages, tools }))
        if (p.type === "tool-call" || p.type === "reasoning" || p.type === "text-delta") content.push(p);
      return content.flatMap((p) => (p.type === "text-delta" ? [{ type: "text" as const, text: p.delta }] : [{ ...p } as never]));
    };
    const messages: ModelMessage[] = [{ role: "user", content: "Weather in Paris?" }];
    const content = await ask(messages);
    const call = content.find((p: { type: string }) => p.type === "tool-call") as { toolCallId: string; toolName: string } | undefined;
    if (!call) throw new Error("expected a call");
    messages.push(
      { role: "assistant", content },
      { role: "tool", content: [{ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: "21°C" }] },
    );
    await ask(messages);
    const [first, second] = gateway.requests.map((r) => r.body as Record<string, unknown>);
    expect(first).toMatchObject({ store: true });
    expect(first?.include).toBeUndefined();
    expect(gateway.requests.map((r) => r.rejected)).toEqual([undefined, undefined]);
    expect(typeof second?.previous_response_id).toBe("string");
    expect(second?.input).toEqual([{ type: "function_call_output", call_id: call.toolCallId, output: "21°C" }]);
    // The gateway resolved the stored conversation: it saw all of it.
    expect(gateway.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  });
