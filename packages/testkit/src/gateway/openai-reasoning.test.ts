/**
 * Reasoning fields and automatic prefix caching on the fake openai gateway, the official `openai` SDK as
 * oracle: `reasoning_content` (or `reasoning`) on the message and the stream deltas, reasoning and cached
 * token counts in usage, and each server rule for reasoning sent back.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { APIError } from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { closeGateways, openAiPair, rejection } from "./__fixtures__/oracle-client.ts";

afterEach(closeGateways);

const question: ChatCompletionMessageParam = { role: "user", content: "Weather in Paris?" };
const turn = { reasoning: "Paris: call the tool.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" }, id: "call_1" }] };
const tools = [
  {
    type: "function" as const,
    function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
  },
];
const followUp = (extra: Record<string, unknown>): ChatCompletionMessageParam[] => [
  question,
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    ...extra,
  } as ChatCompletionMessageParam,
  { role: "tool", tool_call_id: "call_1", content: "21°C" },
];

describe("openai gateway: reasoning", () => {
  test("reasoning_content whole and streamed, before the answer; reasoning tokens in usage; `reasoning` when asked", async () => {
    const { client } = await openAiPair({ script: [turn, turn] });
    const whole = await client.chat.completions.create({ model: "m", messages: [question], tools });
    const message = whole.choices[0]?.message as unknown as Record<string, unknown>;
    expect(message.reasoning_content).toBe("Paris: call the tool.");
    expect(whole.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [question],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = "";
    let sawCallAfterReasoning = false;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
      if (typeof delta?.reasoning_content === "string") reasoning += delta.reasoning_content;
      if (delta?.tool_calls) sawCallAfterReasoning = reasoning === "Paris: call the tool.";
    }
    expect(reasoning).toBe("Paris: call the tool.");
    expect(sawCallAfterReasoning).toBe(true);
    const { client: ollama } = await openAiPair({ script: [{ text: "hi", reasoning: "think" }], reasoningField: "reasoning" });
    const other = (await ollama.chat.completions.create({ model: "m", messages: [question] })).choices[0]?.message as unknown as Record<
      string,
      unknown
    >;
    expect([other.reasoning, other.reasoning_content]).toEqual(["think", undefined]);
  });

  test("forbid refuses reasoning sent back; require refuses it missing or changed and takes it unchanged", async () => {
    const { client: deepseek } = await openAiPair({ script: [{ text: "ok" }], reasoningPassBack: "forbid" });
    const forbidden = await rejection(deepseek.chat.completions.create({ model: "m", messages: followUp({ reasoning_content: "x" }) }));
    expect(forbidden instanceof APIError && forbidden.status === 400 && forbidden.message.includes("reasoning_content")).toBe(true);
    const { client, gateway } = await openAiPair({ script: [turn, { text: "21°C" }], reasoningPassBack: "require" });
    await client.chat.completions.create({ model: "m", messages: [question], tools });
    for (const extra of [{}, { reasoning_content: "changed" }]) {
      const error = await rejection(client.chat.completions.create({ model: "m", messages: followUp(extra), tools }));
      expect(error instanceof APIError && error.status === 400).toBe(true);
    }
    const answer = await client.chat.completions.create({
      model: "m",
      messages: followUp({ reasoning_content: "Paris: call the tool." }),
      tools,
    });
    expect(answer.choices[0]?.message.content).toBe("21°C");
    expect(gateway.requests.filter((r) => r.rejected).length).toBe(2);
  });
});

describe("openai gateway: automatic prefix caching", () => {
  test("a request that repeats the previous prompt and adds to it reads the repeated part from the cache", async () => {
    const { client, gateway } = await openAiPair({ script: [turn, { text: "21°C" }] });
    const first = await client.chat.completions.create({ model: "m", messages: [question], tools });
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await client.chat.completions.create({ model: "m", messages: followUp({}), tools });
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    expect(cached).toBeGreaterThan(0);
    expect(cached).toBeLessThan(second.usage?.prompt_tokens ?? 0);
    expect(gateway.requests[1]?.cache?.read).toBe(cached);
  });
});
