import { describe, expect, test } from "bun:test";
import type { ModelStreamPart } from "@agentd/sdk/model";
import { jsonResponse, readFixture, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import { convertGeminiUsage } from "./convert-gemini-usage.ts";
import { createGemini } from "./gemini-language-model.ts";
import { mapGeminiFinishReason } from "./map-gemini-finish-reason.ts";

const tools = [
  {
    name: "get_weather",
    description: "Weather",
    inputSchema: { $schema: "x", type: "object", properties: { city: { type: "string" } }, additionalProperties: false },
  },
  { name: "get_time", inputSchema: { type: "object", properties: {} } },
];
const user = { role: "user" as const, content: "hi" };

async function collect(stream: AsyncIterable<ModelStreamPart>) {
  const parts: ModelStreamPart[] = [];
  for await (const p of stream) parts.push(p);
  return parts;
}

describe("gemini request", () => {
  test("URL, key header, tools cut to the subset, toolConfig, generationConfig", async () => {
    const { fetch, sent } = scriptedFetch([
      () => jsonResponse({ candidates: [{ content: { parts: [{ text: "ok" }] }, finishReason: "STOP" }] }),
    ]);
    const m = createGemini({ model: "models/gemini-x", apiKey: "AIza-secret", fetch, baseURL: "http://gw.test" });
    await m.generate({
      messages: [{ role: "system", content: "Sys." }, user],
      tools,
      toolChoice: { type: "tool", toolName: "get_time" },
      maxOutputTokens: 100,
      temperature: 0.5,
      stopSequences: ["STOP!"],
      responseFormat: { type: "json", schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false } },
    });
    expect(sent[0]?.url).toBe("http://gw.test/v1beta/models/gemini-x:generateContent");
    expect(sent[0]?.headers["x-goog-api-key"]).toBe("AIza-secret");
    expect(sent[0]?.url).not.toContain("AIza");
    expect(sent[0]?.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "Sys." }] },
      tools: [
        {
          functionDeclarations: [
            { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
            { name: "get_time" },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_time"] } },
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 0.5,
        stopSequences: ["STOP!"],
        responseMimeType: "application/json",
        responseSchema: { type: "object", properties: { a: { type: "string" } } },
      },
    });
  });

  test("thought signatures come back on the function call they arrived with, in the next request", async () => {
    const { fetch, sent } = scriptedFetch([
      () => sseResponse(readFixture(import.meta.url, "gemini-function-calls.chunks.jsonl"), { lineEnd: "\r\n" }),
      () => jsonResponse({ candidates: [{ content: { parts: [{ text: "done" }] }, finishReason: "STOP" }] }),
    ]);
    const m = createGemini({ model: "gemini-3-pro-preview", apiKey: "k", fetch });
    const parts = await collect(m.stream({ messages: [user], tools }));
    const calls = parts.flatMap((p) => (p.type === "tool-call" ? [p] : []));
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ["get_weather", { city: "Paris", days: 2 }],
      ["get_time", {}],
    ]);
    expect(parts.at(-1)).toMatchObject({
      finishReason: "tool-calls",
      usage: { inputTokens: 60, outputTokens: 25, totalTokens: 85 },
      modelId: "gemini-3-pro-preview",
    });
    await m.generate({
      messages: [
        user,
        { role: "assistant", content: calls.map(({ type: _, ...c }) => ({ type: "tool-call" as const, ...c })) },
        {
          role: "tool",
          content: calls.map((c) => ({ type: "tool-result" as const, toolCallId: c.toolCallId, toolName: c.toolName, output: "x" })),
        },
      ],
      tools,
    });
    const model = (sent[1]!.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>)[1];
    expect(model?.parts[0]).toEqual({
      functionCall: { name: "get_weather", args: { city: "Paris", days: 2 } },
      thoughtSignature: "CiQB0e2Kb1sigA==",
    });
    expect(model?.parts[1]).toEqual({ functionCall: { name: "get_time", args: {} } });
    expect(sent[0]?.url).toEndWith(":streamGenerateContent?alt=sse");
  });
});

describe("gemini stream fixtures", () => {
  test("text pieces; a thought part is reasoning, never text; thinking tokens counted as output and apart", async () => {
    const { fetch } = scriptedFetch([
      () => sseResponse(readFixture(import.meta.url, "gemini-text.chunks.jsonl"), { lineEnd: "\r\n", pieceBytes: 5 }),
    ]);
    const parts = await collect(createGemini({ model: "g", fetch }).stream({ messages: [user] }));
    expect(parts).toEqual([
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: "The sky" },
      { type: "text-end", id: "text-0" },
      { type: "reasoning-start", id: "reasoning-0" },
      { type: "reasoning-delta", id: "reasoning-0", delta: "Thinking about colour…" },
      { type: "reasoning-end", id: "reasoning-0" },
      { type: "reasoning", provider: "gemini", text: "Thinking about colour…" },
      { type: "text-start", id: "text-1" },
      { type: "text-delta", id: "text-1", delta: " is blue — 青い空." },
      { type: "text-end", id: "text-1" },
      {
        type: "finish",
        finishReason: "stop",
        usage: { inputTokens: 8, outputTokens: 29, totalTokens: 37, reasoningTokens: 20 },
        modelId: "gemini-2.5-flash",
      },
    ]);
  });

  test("a blocked prompt finishes as content-filter", async () => {
    const { fetch } = scriptedFetch([() => sseResponse(readFixture(import.meta.url, "gemini-blocked.chunks.jsonl"))]);
    const parts = await collect(createGemini({ model: "g", fetch }).stream({ messages: [user] }));
    expect(parts).toEqual([
      {
        type: "finish",
        finishReason: "content-filter",
        usage: { inputTokens: 12, outputTokens: 0, totalTokens: 12 },
        modelId: "gemini-2.5-flash",
      },
    ]);
  });
});

describe("gemini mapping", () => {
  test("finish reasons", () => {
    expect(mapGeminiFinishReason("STOP", false)).toBe("stop");
    expect(mapGeminiFinishReason("STOP", true)).toBe("tool-calls");
    expect(mapGeminiFinishReason("MAX_TOKENS", false)).toBe("length");
    expect(mapGeminiFinishReason("SAFETY", false)).toBe("content-filter");
    expect(mapGeminiFinishReason("RECITATION", false)).toBe("content-filter");
    expect(mapGeminiFinishReason("MALFORMED_FUNCTION_CALL", false)).toBe("error");
    expect(mapGeminiFinishReason("OTHER", false)).toBe("other");
    expect(mapGeminiFinishReason(undefined, false)).toBe("other");
    expect(mapGeminiFinishReason(undefined, false, true)).toBe("content-filter");
  });
  test("usage", () => {
    expect(convertGeminiUsage({ promptTokenCount: 3, candidatesTokenCount: 4 })).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
    });
    expect(convertGeminiUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });
});
