import { describe, expect, test } from "bun:test";
import { AgentdError, type ModelRequest } from "@agentd/sdk/model";
import { jsonResponse, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import { convertOpenAICompatibleUsage } from "./convert-openai-compatible-usage.ts";
import { mapOpenAICompatibleFinishReason } from "./map-openai-compatible-finish-reason.ts";
import { createOpenAICompatible, type OpenAICompatibleSettings } from "./openai-compatible-language-model.ts";

const tools = [{ name: "lookup", description: "Find things", inputSchema: { type: "object", properties: { q: { type: "string" } } } }];
const request: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools };
const completion = (message: Record<string, unknown>, finish: string | null = "stop", usage?: unknown) =>
  jsonResponse({ id: "x", model: "served-model", choices: [{ index: 0, message, finish_reason: finish }], usage });

function model(replies: Parameters<typeof scriptedFetch>[0], extra: Partial<OpenAICompatibleSettings> = {}) {
  const { fetch, sent } = scriptedFetch(replies);
  return { m: createOpenAICompatible({ baseURL: "http://gw.test/v1/", model: "m1", apiKey: "sk-live-123", fetch, ...extra }), sent };
}

describe("openai-compatible request", () => {
  test("URL, auth header, tools, tool_choice, sampling options", async () => {
    const { m, sent } = model([() => completion({ content: "ok" })], { headers: { "x-route": "blue" } });
    await m.generate({
      ...request,
      toolChoice: { type: "tool", toolName: "lookup" },
      maxOutputTokens: 50,
      temperature: 0,
      stopSequences: ["END"],
    });
    expect(sent[0]?.url).toBe("http://gw.test/v1/chat/completions");
    expect(sent[0]?.headers.authorization).toBe("Bearer sk-live-123");
    expect(sent[0]?.headers["x-route"]).toBe("blue");
    expect(sent[0]?.body).toEqual({
      model: "m1",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "lookup", description: "Find things", parameters: tools[0]?.inputSchema } }],
      tool_choice: { type: "function", function: { name: "lookup" } },
      max_tokens: 50,
      temperature: 0,
      stop: ["END"],
    });
  });

  test("tool_choice strings pass through; no tools means no tool_choice", async () => {
    const { m, sent } = model([() => completion({ content: "a" }), () => completion({ content: "b" })]);
    await m.generate({ ...request, toolChoice: "required" });
    await m.generate({ messages: request.messages, toolChoice: "required" });
    expect(sent[0]?.body.tool_choice).toBe("required");
    expect(sent[1]?.body.tools).toBeUndefined();
    expect(sent[1]?.body.tool_choice).toBeUndefined();
  });

  test("response_format: json_schema with a schema, json_object without or when not supported", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    const { m, sent } = model([() => completion({ content: "{}" }), () => completion({ content: "{}" })]);
    await m.generate({ ...request, responseFormat: { type: "json", schema, name: "answer" } });
    await m.generate({ ...request, responseFormat: { type: "json" } });
    expect(sent[0]?.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "answer", schema } });
    expect(sent[1]?.body.response_format).toEqual({ type: "json_object" });
    const plain = model([() => completion({ content: "{}" })], { structuredOutputs: false });
    await plain.m.generate({ ...request, responseFormat: { type: "json", schema } });
    expect(plain.sent[0]?.body.response_format).toEqual({ type: "json_object" });
  });

  test("supportsTools: false sends no tools and says so", async () => {
    const { m, sent } = model([() => completion({ content: '{"action":"final","result":1}' })], { supportsTools: false });
    expect(m.supportsTools).toBe(false);
    await m.generate({ ...request, toolChoice: "auto" });
    expect(sent[0]?.body.tools).toBeUndefined();
    expect(sent[0]?.body.tool_choice).toBeUndefined();
  });

  test("no api key, no authorization header; includeUsage: false drops stream_options", async () => {
    const { fetch, sent } = scriptedFetch([
      () => sseResponse(['{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}'], { done: true }),
    ]);
    const m = createOpenAICompatible({ baseURL: "http://gw.test/v1", model: "m", fetch, includeUsage: false });
    for await (const _ of m.stream(request)) void _;
    expect(sent[0]?.headers.authorization).toBeUndefined();
    expect(sent[0]?.body.stream).toBe(true);
    expect(sent[0]?.body.stream_options).toBeUndefined();
  });
});

describe("openai-compatible response", () => {
  test("text and tool calls; string, object and empty arguments; missing ids made up", async () => {
    const { m } = model([
      () =>
        completion(
          {
            content: "Looking.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"a"}' } },
              { id: "", type: "function", function: { name: "lookup", arguments: { q: "b" } } },
              { type: "function", function: { name: "lookup", arguments: "" } },
            ],
          },
          "tool_calls",
          { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
        ),
    ]);
    const r = await m.generate(request);
    expect(r.content[0]).toEqual({ type: "text", text: "Looking." });
    const got = r.content.slice(1).map((p) => (p.type === "tool-call" ? [p.toolCallId.startsWith("call_"), p.input] : []));
    expect(got).toEqual([
      [true, { q: "a" }],
      [true, { q: "b" }],
      [true, {}],
    ]);
    expect(r).toMatchObject({
      finishReason: "tool-calls",
      usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 },
      modelId: "served-model",
    });
  });

  test("a 200 carrying an error object is an E_UPSTREAM", async () => {
    const { m } = model([() => jsonResponse({ error: { message: "model overloaded", code: 503 } })]);
    const e = await m.generate(request).catch((x: unknown) => x);
    expect(AgentdError.isInstance(e) && e.code === "E_UPSTREAM" && e.message.includes("model overloaded")).toBe(true);
  });

  test("an error chunk mid-stream is an E_UPSTREAM", async () => {
    const { m } = model([() => sseResponse(['{"choices":[{"delta":{"content":"par"}}]}', '{"error":{"message":"upstream died"}}'])]);
    const seen: string[] = [];
    const e = await (async () => {
      for await (const p of m.stream(request)) seen.push(p.type);
    })().catch((x: unknown) => x);
    expect(seen).toEqual(["text-start", "text-delta"]);
    expect(AgentdError.isInstance(e) && e.code === "E_UPSTREAM" && e.message.includes("upstream died")).toBe(true);
  });

  test("a stream cut before any finish is retried, then fails as retryable E_UPSTREAM", async () => {
    const cut = () => sseResponse(['{"choices":[{"delta":{"role":"assistant"}}]}']);
    const { m, sent } = model(
      [cut, () => sseResponse(['{"choices":[{"delta":{"content":"whole"},"finish_reason":"stop"}]}'], { done: true })],
      {
        retryDelayMs: 1,
      },
    );
    const parts: string[] = [];
    for await (const p of m.stream(request)) if (p.type === "text-delta") parts.push(p.delta);
    expect(parts).toEqual(["whole"]);
    expect(sent).toHaveLength(2);
  });
});

describe("openai-compatible mapping", () => {
  test("finish reasons", () => {
    const table: Array<[string | undefined, string]> = [
      ["stop", "stop"],
      ["length", "length"],
      ["tool_calls", "tool-calls"],
      ["function_call", "tool-calls"],
      ["content_filter", "content-filter"],
      ["error", "error"],
      [undefined, "other"],
      ["eos", "other"],
    ];
    for (const [wire, ours] of table) expect(mapOpenAICompatibleFinishReason(wire)).toBe(ours as never);
  });
  test("usage: missing counts are zero, a missing total is the sum", () => {
    expect(convertOpenAICompatibleUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(convertOpenAICompatibleUsage({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      totalTokens: 7,
    });
    expect(convertOpenAICompatibleUsage({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 9 }).totalTokens).toBe(9);
  });
});
