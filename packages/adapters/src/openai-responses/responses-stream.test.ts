/**
 * The Responses stream decoder on recorded-shape event streams (replayed in small byte pieces): reasoning
 * summaries in several parts become one reasoning part carrying the item id and encrypted content; a
 * function call's id is its `call_id`; usage splits cached and reasoning tokens; `error` and
 * `response.failed` events are typed errors.
 */
import { expect, test } from "bun:test";
import { AgentdError, type ModelStreamPart } from "@agentd/sdk/model";
import { readFixture, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import { createOpenAIResponses } from "./responses-language-model.ts";

async function replay(name: string) {
  const { fetch } = scriptedFetch([() => sseResponse(readFixture(import.meta.url, name), { eventNames: true })]);
  const model = createOpenAIResponses({ model: "gpt-5-mini", apiKey: "sk-1", fetch, maxRetries: 0 });
  const parts: ModelStreamPart[] = [];
  try {
    for await (const p of model.stream({ messages: [{ role: "user", content: "Weather in Paris?" }] })) parts.push(p);
  } catch (error) {
    return { parts, error };
  }
  return { parts, error: undefined };
}

test("reasoning in two summary parts, then a call: one reasoning part with id and encrypted content, the call by call_id", async () => {
  const { parts, error } = await replay("responses-reasoning-tool-call.chunks.jsonl");
  expect(error).toBeUndefined();
  expect(parts.map((p) => p.type)).toEqual([
    "reasoning-start",
    "reasoning-delta",
    "reasoning-delta",
    "reasoning-delta",
    "reasoning-end",
    "reasoning",
    "tool-call-start",
    "tool-call-delta",
    "tool-call-delta",
    "tool-call-end",
    "tool-call",
    "finish",
  ]);
  expect(parts.find((p) => p.type === "reasoning")).toEqual({
    type: "reasoning",
    provider: "openai-responses",
    text: "**Planning** the call\n\nWeather first.",
    itemId: "rs_1",
    redactedData: "gAAAAB-enc",
  });
  expect(parts.find((p) => p.type === "tool-call")).toEqual({
    type: "tool-call",
    toolCallId: "call_abc",
    toolName: "get_weather",
    input: { city: "Paris" },
  });
  expect(parts.at(-1)).toEqual({
    type: "finish",
    finishReason: "tool-calls",
    modelId: "gpt-5-mini-2025-08-07",
    usage: { inputTokens: 120, outputTokens: 90, totalTokens: 210, cacheReadTokens: 64, reasoningTokens: 64 },
  });
});

test("an error event and a failed response are E_UPSTREAM with the provider's message", async () => {
  for (const [name, words] of [
    ["responses-error-event.chunks.jsonl", "server had an error"],
    ["responses-failed.chunks.jsonl", "Rate limit reached"],
  ] as const) {
    const { parts, error } = await replay(name);
    expect(parts).toEqual([]);
    expect(AgentdError.isInstance(error) && error.code === "E_UPSTREAM").toBe(true);
    expect((error as Error).message).toContain(words);
  }
});
