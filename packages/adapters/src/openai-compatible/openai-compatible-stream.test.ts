import { describe, expect, test } from "bun:test";
import type { ModelStreamPart } from "@agentd/sdk/model";
import { readFixture, scriptedFetch, sseResponse, type ReplayOptions } from "../__fixtures__/fixture-replay.ts";
import { createOpenAICompatible } from "./openai-compatible-language-model.ts";

async function replay(name: string, options: ReplayOptions = { done: true }) {
  const chunks = readFixture(import.meta.url, name);
  const { fetch, sent } = scriptedFetch([() => sseResponse(chunks, options)]);
  const model = createOpenAICompatible({ baseURL: "http://gateway.test/v1", model: "m", fetch, maxRetries: 0 });
  const parts: ModelStreamPart[] = [];
  for await (const p of model.stream({ messages: [{ role: "user", content: "hi" }] })) parts.push(p);
  return { parts, sent };
}

const calls = (parts: ModelStreamPart[]) =>
  parts.flatMap((p) => (p.type === "tool-call" ? [{ id: p.toolCallId, name: p.toolName, input: p.input }] : []));
const text = (parts: ModelStreamPart[]) => parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");

describe("openai-compatible stream fixtures", () => {
  test("OpenAI: argument fragments (with escaped quotes and braces) accumulate by index", async () => {
    const { parts, sent } = await replay("openai-tool-call-fragments.chunks.jsonl");
    expect(sent[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(calls(parts)).toEqual([{ id: "call_Qx7hV2yFJmN9", name: "get_weather", input: { city: 'Paris, "FR" {}', days: 3 } }]);
    const deltas = parts.flatMap((p) => (p.type === "tool-call-delta" ? [p.delta] : []));
    expect(deltas.length).toBe(6);
    expect(parts.map((p) => p.type)).toEqual([
      "tool-call-start",
      ...deltas.map(() => "tool-call-delta" as const),
      "tool-call-end",
      "tool-call",
      "finish",
    ]);
    expect(parts.at(-1)).toEqual({
      type: "finish",
      finishReason: "tool-calls",
      usage: { inputTokens: 84, outputTokens: 21, totalTokens: 105, cacheReadTokens: 0, reasoningTokens: 0 },
      modelId: "gpt-4o-mini-2024-07-18",
    });
  });

  test("OpenAI: parallel calls interleaved by index, text before them", async () => {
    const { parts } = await replay("openai-parallel-tool-calls.chunks.jsonl");
    expect(text(parts)).toBe("Let me check both.");
    expect(calls(parts)).toEqual([
      { id: "call_A1", name: "get_weather", input: { city: "Paris" } },
      { id: "call_B2", name: "get_time", input: { zone: "Europe/Paris" } },
    ]);
    expect(parts.at(-1)).toMatchObject({ finishReason: "tool-calls", usage: { totalTokens: 160 } });
  });

  test("Ollama: a whole call in one chunk and finish_reason stop means tool-calls", async () => {
    const { parts } = await replay("ollama-tool-call.chunks.jsonl");
    expect(calls(parts)).toEqual([{ id: "call_k2m4x9", name: "get_weather", input: { city: "Oslo" } }]);
    expect(parts.at(-1)).toMatchObject({ finishReason: "tool-calls", usage: { inputTokens: 160, outputTokens: 19 } });
  });

  test("vLLM-style: empty ids, no usage, no [DONE], CRLF framing", async () => {
    const { parts } = await replay("vllm-text-no-usage.chunks.jsonl", { done: false, lineEnd: "\r\n", pieceBytes: 3 });
    expect(text(parts)).toBe("Bonjour — ça va ? 🙂");
    expect(parts.at(-1)).toEqual({
      type: "finish",
      finishReason: "length",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      modelId: "meta-llama/Llama-3.1-8B-Instruct",
    });
  });

  test("gateway without indexes or ids: calls told apart, object arguments accepted, ids made up", async () => {
    const { parts } = await replay("gateway-unindexed-tool-calls.chunks.jsonl");
    const got = calls(parts);
    expect(got.map((c) => [c.name, c.input])).toEqual([
      ["get_weather", { city: "Rome" }],
      ["get_time", { zone: "CET" }],
    ]);
    expect(got[0]?.id).toStartWith("call_");
    expect(got[1]?.id).toBe("t2");
    expect(parts.at(-1)).toMatchObject({ usage: { inputTokens: 30, outputTokens: 12, totalTokens: 42 } });
  });
});
