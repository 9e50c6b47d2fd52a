import { describe, expect, test } from "bun:test";
import { AgentdError, type ModelStreamPart } from "@agentd/sdk/model";
import { jsonResponse, readFixture, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import { createAnthropic } from "./anthropic-language-model.ts";
import { convertAnthropicUsage, mergeAnthropicUsage } from "./convert-anthropic-usage.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";

const tools = [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];

async function replay(name: string) {
  const { fetch, sent } = scriptedFetch([() => sseResponse(readFixture(import.meta.url, name), { eventNames: true })]);
  const m = createAnthropic({ model: "claude-x", apiKey: "sk-ant-1", fetch, maxRetries: 0 });
  const parts: ModelStreamPart[] = [];
  let error: unknown;
  try {
    for await (const p of m.stream({ messages: [{ role: "user", content: "hi" }], tools })) parts.push(p);
  } catch (e) {
    error = e;
  }
  return { parts, sent, error };
}

describe("anthropic request", () => {
  test("URL, headers, system, max_tokens default, tool_choice mapping, JSON instruction", async () => {
    const reply = () =>
      jsonResponse({
        model: "claude-x",
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    const { fetch, sent } = scriptedFetch([reply, reply, reply]);
    const m = createAnthropic({
      model: "claude-x",
      apiKey: "sk-ant-1",
      fetch,
      baseURL: "http://gw.test/",
      promptCache: { enabled: false },
    });
    const messages = [
      { role: "system" as const, content: "Sys." },
      { role: "user" as const, content: "hi" },
    ];
    await m.generate({ messages, tools, toolChoice: "required", temperature: 0.2, stopSequences: ["X"] });
    await m.generate({ messages, tools, toolChoice: { type: "tool", toolName: "get_weather" }, maxOutputTokens: 9 });
    await m.generate({ messages, responseFormat: { type: "json", schema: { type: "object" } } });
    expect(sent[0]?.url).toBe("http://gw.test/v1/messages");
    expect(sent[0]?.headers["x-api-key"]).toBe("sk-ant-1");
    expect(sent[0]?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent[0]?.headers.authorization).toBeUndefined();
    expect(sent[0]?.body).toEqual({
      model: "claude-x",
      max_tokens: 4096,
      system: "Sys.",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "get_weather", input_schema: tools[0]?.inputSchema }],
      tool_choice: { type: "any" },
      temperature: 0.2,
      stop_sequences: ["X"],
    });
    expect(sent[1]?.body).toMatchObject({ max_tokens: 9, tool_choice: { type: "tool", name: "get_weather" } });
    expect(sent[2]?.body.system).toContain('JSON Schema: {"type":"object"}');
  });

  test("generate: thinking, text and tool_use blocks in order, usage with its cache split", async () => {
    const { fetch } = scriptedFetch([
      () =>
        jsonResponse({
          model: "claude-x-2025",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Rome" } },
          ],
          stop_reason: "tool_use",
          usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 5 },
        }),
    ]);
    const r = await createAnthropic({ model: "claude-x", apiKey: "k", fetch }).generate({ messages: [{ role: "user", content: "hi" }] });
    expect(r).toEqual({
      content: [
        { type: "reasoning", provider: "anthropic", text: "hmm", signature: "sig" },
        { type: "text", text: "Checking." },
        { type: "tool-call", toolCallId: "toolu_9", toolName: "get_weather", input: { city: "Rome" } },
      ],
      finishReason: "tool-calls",
      usage: { inputTokens: 100, outputTokens: 5, totalTokens: 105, cacheReadTokens: 90 },
      modelId: "claude-x-2025",
    });
  });
});

describe("anthropic stream fixtures", () => {
  test("text: deltas, usage from message_start and message_delta, ping ignored", async () => {
    const { parts } = await replay("anthropic-text.chunks.jsonl");
    expect(parts).toEqual([
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: "Hello" },
      { type: "text-delta", id: "text-0", delta: ", wörld! 👋" },
      { type: "text-end", id: "text-0" },
      {
        type: "finish",
        finishReason: "stop",
        usage: { inputTokens: 125, outputTokens: 15, totalTokens: 140, cacheReadTokens: 100, cacheWriteTokens: 0 },
        modelId: "claude-sonnet-4-5-20250929",
      },
    ]);
  });

  test("tool_use: input_json_delta fragments, an input-less call, stop_reason tool_use", async () => {
    const { parts } = await replay("anthropic-tool-use.chunks.jsonl");
    const calls = parts.filter((p) => p.type === "tool-call");
    expect(calls).toEqual([
      {
        type: "tool-call",
        toolCallId: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        toolName: "get_weather",
        input: { city: "San Francisco, CA", unit: "fahrenheit" },
      },
      { type: "tool-call", toolCallId: "toolu_02AbCdEf", toolName: "get_time", input: {} },
    ]);
    expect(parts.filter((p) => p.type === "tool-call-delta").length).toBe(3);
    expect(parts.at(-1)).toMatchObject({ finishReason: "tool-calls", usage: { inputTokens: 472, outputTokens: 89 } });
  });

  test("an overloaded error event before any part is retried; once retries are spent it is E_UPSTREAM", async () => {
    const overloaded = () => sseResponse(readFixture(import.meta.url, "anthropic-overloaded.chunks.jsonl"), { eventNames: true });
    const text = () => sseResponse(readFixture(import.meta.url, "anthropic-text.chunks.jsonl"), { eventNames: true });
    const { fetch, sent } = scriptedFetch([overloaded, text]);
    const m = createAnthropic({ model: "claude-x", apiKey: "k", fetch, maxRetries: 1, retryDelayMs: 1 });
    let out = "";
    for await (const p of m.stream({ messages: [{ role: "user", content: "hi" }] })) if (p.type === "text-delta") out += p.delta;
    expect(out).toBe("Hello, wörld! 👋");
    expect(sent).toHaveLength(2);

    const { parts, error } = await replay("anthropic-overloaded.chunks.jsonl");
    expect(parts).toEqual([]);
    expect(AgentdError.isInstance(error) && error.code === "E_UPSTREAM" && error.message.includes("Overloaded")).toBe(true);
  });
});

describe("anthropic mapping", () => {
  test("stop reasons", () => {
    expect(
      ["end_turn", "stop_sequence", "max_tokens", "tool_use", "refusal", "pause_turn", undefined].map(mapAnthropicFinishReason),
    ).toEqual(["stop", "stop", "length", "tool-calls", "content-filter", "other", "other"]);
  });
  test("usage merge: later counts win, missing ones keep the earlier", () => {
    const merged = mergeAnthropicUsage({ input_tokens: 7, output_tokens: 1 }, { output_tokens: 30 });
    expect(convertAnthropicUsage(merged)).toEqual({ inputTokens: 7, outputTokens: 30, totalTokens: 37 });
    expect(convertAnthropicUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});
