/**
 * Thinking and prompt caching on the fake anthropic gateway, the official `@anthropic-ai/sdk` as oracle:
 * signed thinking blocks parse (whole and streamed), come back unchanged or the request fails with the
 * real API's error, and the cache model reports writes then reads at `cache_control` breakpoints.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { APIError } from "@anthropic-ai/sdk";
import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { anthropicPair, closeGateways, rejection } from "./__fixtures__/oracle-client.ts";

afterEach(closeGateways);

const tool = { name: "get_weather", input_schema: { type: "object" as const, properties: { city: { type: "string" } } } };
const base = { model: "claude-test", max_tokens: 4096, tools: [tool], thinking: { type: "enabled" as const, budget_tokens: 1024 } };
const question: MessageParam = { role: "user", content: "Weather in Paris?" };
const turn = {
  reasoning: "Paris: call the tool.",
  redactedReasoning: true,
  toolCalls: [{ name: "get_weather", arguments: { city: "Paris" }, id: "toolu_1" }],
};
const result = (content: ContentBlockParam[]): MessageParam[] => [
  question,
  { role: "assistant", content },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "21°C" }] },
];

describe("anthropic gateway: thinking", () => {
  test("signed thinking and redacted_thinking parse whole and streamed; sent back unchanged they pass", async () => {
    const { client, gateway } = await anthropicPair({ script: [turn, turn, { text: "21°C in Paris." }] });
    const whole = await client.messages.create({ ...base, messages: [question] });
    expect(whole.content.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(whole.content[0]).toMatchObject({ type: "thinking", thinking: "Paris: call the tool." });
    expect(whole.usage.output_tokens_details?.thinking_tokens).toBeGreaterThan(0);
    const streamed = await client.messages.stream({ ...base, messages: [question] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: "thinking", thinking: "Paris: call the tool." });
    expect((streamed.content[0] as { signature: string }).signature).toBe((whole.content[0] as { signature: string }).signature);
    const answer = await client.messages.create({ ...base, messages: result(streamed.content as ContentBlockParam[]) });
    expect(answer.content.at(-1)).toMatchObject({ type: "text", text: "21°C in Paris." });
    expect(gateway.requests.map((r) => r.rejected)).toEqual([undefined, undefined, undefined]);
  });

  test("a changed signature, a dropped thinking block, and a forced tool choice fail like the real API", async () => {
    const { client } = await anthropicPair({ script: [turn], onExhausted: "repeat-last" });
    const served = (await client.messages.create({ ...base, messages: [question] })).content as ContentBlockParam[];
    const thinking = served[0] as { type: "thinking"; thinking: string; signature: string };
    const cases: Array<[ContentBlockParam[], string]> = [
      [[{ ...thinking, thinking: `${thinking.thinking} (edited)` }, ...served.slice(1)], "Invalid `signature` in `thinking` block"],
      [served.slice(2), "Expected `thinking` or `redacted_thinking`, but found `tool_use`"],
      [[thinking, { type: "redacted_thinking", data: "made-up" }, ...served.slice(2)], "Invalid `data` in `redacted_thinking` block"],
    ];
    for (const [content, message] of cases) {
      const error = await rejection(client.messages.create({ ...base, messages: result(content) }));
      expect(error instanceof APIError && error.status === 400).toBe(true);
      expect((error as APIError).error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect((error as APIError).message).toContain(message);
    }
    const forced = await rejection(client.messages.create({ ...base, tool_choice: { type: "any" }, messages: [question] }));
    expect((forced as APIError).message).toContain("Thinking may not be enabled when tool_choice forces tool use.");
    const budget = await rejection(client.messages.create({ ...base, max_tokens: 1000, messages: [question] }));
    expect((budget as APIError).message).toContain("`max_tokens` must be greater than `thinking.budget_tokens`");
  });
});

describe("anthropic gateway: prompt caching", () => {
  test("the first request writes at its breakpoints, the next reads them; five breakpoints are refused", async () => {
    const { client, gateway } = await anthropicPair({ script: [{ text: "one" }, { text: "two" }] });
    const system = [{ type: "text" as const, text: "You are terse. ".repeat(40), cache_control: { type: "ephemeral" as const } }];
    const first = await client.messages.create({ model: "claude-test", max_tokens: 64, system, messages: [question] });
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    const second = await client.messages.create({
      model: "claude-test",
      max_tokens: 64,
      system,
      messages: [{ role: "user", content: "Weather in Oslo?" }],
    });
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(gateway.requests[1]?.cache).toEqual({ read: first.usage.cache_creation_input_tokens as number, write: 0 });
    expect(second.usage.input_tokens).toBeGreaterThan(0);
    const marked = { type: "text" as const, text: "x", cache_control: { type: "ephemeral" as const } };
    const error = await rejection(
      client.messages.create({
        model: "claude-test",
        max_tokens: 64,
        system: [marked, marked, marked],
        messages: [{ role: "user", content: [marked, marked] }],
      }),
    );
    expect((error as APIError).message).toContain("A maximum of 4 blocks with cache_control may be provided. Found 5.");
  });
});
