import { describe, expect, test } from "bun:test";
import type { ModelMessage, ModelStreamPart } from "@agentd/sdk/model";
import { jsonResponse, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import { createOpenAICompatible, type OpenAICompatibleSettings } from "./openai-compatible-language-model.ts";

const user = { role: "user" as const, content: "Weather?" };
const completion =
  (message: Record<string, unknown>, usage: Record<string, unknown> = {}) =>
  () =>
    jsonResponse({ model: "m", choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }], usage });
const model = (fetch: OpenAICompatibleSettings["fetch"], extra: Partial<OpenAICompatibleSettings> = {}) =>
  createOpenAICompatible({ model: "m", baseURL: "http://gw.test/v1", fetch, ...extra });

describe("openai-compatible reasoning", () => {
  test("reasoning_content (vLLM, DeepSeek) or reasoning (Ollama) is a reasoning part, never the answer", async () => {
    const { fetch } = scriptedFetch([
      completion({ content: "Sunny.", reasoning_content: "think A" }),
      completion({ content: "Sunny.", reasoning: "think B" }),
    ]);
    const m = model(fetch, { provider: "vllm" });
    expect((await m.generate({ messages: [user] })).content).toEqual([
      { type: "reasoning", provider: "vllm", text: "think A" },
      { type: "text", text: "Sunny." },
    ]);
    expect((await m.generate({ messages: [user] })).content[0]).toEqual({ type: "reasoning", provider: "vllm", text: "think B" });
  });

  test("usage: cached prompt tokens (OpenAI details or DeepSeek's hit count) and reasoning tokens kept apart", async () => {
    const { fetch } = scriptedFetch([
      completion(
        { content: "a" },
        {
          prompt_tokens: 100,
          completion_tokens: 30,
          total_tokens: 130,
          prompt_tokens_details: { cached_tokens: 64 },
          completion_tokens_details: { reasoning_tokens: 20 },
        },
      ),
      completion(
        { content: "b" },
        { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130, prompt_cache_hit_tokens: 90, prompt_cache_miss_tokens: 10 },
      ),
    ]);
    const m = model(fetch);
    expect((await m.generate({ messages: [user] })).usage).toEqual({
      inputTokens: 100,
      outputTokens: 30,
      totalTokens: 130,
      cacheReadTokens: 64,
      reasoningTokens: 20,
    });
    expect((await m.generate({ messages: [user] })).usage).toEqual({
      inputTokens: 100,
      outputTokens: 30,
      totalTokens: 130,
      cacheReadTokens: 90,
    });
  });

  test("reasoning_effort goes out when configured; reasoning goes back only in the configured field and only its own", async () => {
    const history: ModelMessage[] = [
      user,
      {
        role: "assistant",
        content: [
          { type: "reasoning", provider: "openai-compatible", text: "mine" },
          { type: "reasoning", provider: "anthropic", text: "not mine", signature: "s" },
          { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: {} },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "get_weather", output: "sunny" }] },
    ];
    const reply = completion({ content: "ok" });
    const { fetch, sent } = scriptedFetch([reply, reply, reply]);
    await model(fetch, { thinking: { effort: "high", passBack: "reasoning_content" } }).generate({ messages: history });
    await model(fetch, { thinking: { passBack: "reasoning" } }).generate({ messages: history });
    await model(fetch, { thinking: { effort: "low", enabled: false } }).generate({ messages: history });
    const assistant = (i: number) => (sent[i]!.body.messages as Array<Record<string, unknown>>)[1];
    expect(sent[0]?.body.reasoning_effort).toBe("high");
    expect(assistant(0)).toMatchObject({ role: "assistant", content: null, reasoning_content: "mine" });
    expect(assistant(1)?.reasoning).toBe("mine");
    expect(assistant(1)?.reasoning_content).toBeUndefined();
    expect(sent[2]?.body.reasoning_effort).toBeUndefined();
    expect(assistant(2)?.reasoning_content).toBeUndefined();
  });

  test("stream: reasoning deltas come first as reasoning parts and close before the text", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      JSON.stringify({ id: "x", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
    const chunks = [
      chunk({ role: "assistant", reasoning_content: "step 1, " }),
      chunk({ reasoning_content: "step 2" }),
      chunk({ content: "Sunny." }),
      chunk({}, "stop"),
      "[DONE]",
    ];
    const { fetch } = scriptedFetch([() => sseResponse(chunks)]);
    const parts: ModelStreamPart[] = [];
    for await (const p of model(fetch).stream({ messages: [user] })) parts.push(p);
    expect(parts.map((p) => p.type)).toEqual([
      "reasoning-start",
      "reasoning-delta",
      "reasoning-delta",
      "reasoning-end",
      "reasoning",
      "text-start",
      "text-delta",
      "text-end",
      "finish",
    ]);
    expect(parts[4]).toEqual({ type: "reasoning", provider: "openai-compatible", text: "step 1, step 2" });
  });
});
