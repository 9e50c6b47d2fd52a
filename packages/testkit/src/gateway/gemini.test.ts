/**
 * The official `@google/genai` SDK is the oracle: every response the fake gemini gateway serves,
 * streamed (SSE) or not, must parse in it, and every fault must surface as the SDK's own error or retry.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ApiError, FinishReason, GoogleGenAI, type FunctionDeclaration } from "@google/genai";
import { echoLastToolResult, startFakeGateway } from "./index.ts";
import type { FakeGateway, FakeGatewayOptions } from "./types.ts";

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

async function start(options: Omit<FakeGatewayOptions, "dialect">): Promise<{ gateway: FakeGateway; client: GoogleGenAI }> {
  const gateway = await startFakeGateway({ dialect: "gemini", ...options });
  open.push(gateway);
  return { gateway, client: new GoogleGenAI({ apiKey: "AIza-test-secret", httpOptions: { baseUrl: gateway.url } }) };
}

/** The error `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a result");
}

/** Read a whole stream into its chunks. */
async function drain<T>(stream: Promise<AsyncGenerator<T>>): Promise<T[]> {
  const chunks: T[] = [];
  for await (const chunk of await stream) chunks.push(chunk);
  return chunks;
}

const ask = { model: "gemini-test", contents: "Weather in Paris?" };
const weather: FunctionDeclaration = {
  name: "get_weather",
  description: "Weather by city",
  parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } },
};

describe("gemini dialect, official SDK as oracle", () => {
  test("text turn, non-streaming: text, finishReason, usageMetadata, modelVersion", async () => {
    const { client } = await start({ script: [{ text: "Sunny, 21°C.", usage: { input: 12, output: 5 } }] });
    const response = await client.models.generateContent(ask);
    expect(response.text).toBe("Sunny, 21°C.");
    expect(response.candidates?.[0]?.finishReason).toBe(FinishReason.STOP);
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 });
    expect(response.modelVersion).toBe("gemini-test");
  });

  test("text turn, streaming over SSE: chunks rebuild the text; the last carries finish and usage", async () => {
    const { client, gateway } = await start({
      script: [{ text: "Sunny and warm in Paris today.", usage: { input: 9, output: 7 }, finishReason: "length" }],
    });
    const chunks = await drain(client.models.generateContentStream(ask));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.text ?? "").join("")).toBe("Sunny and warm in Paris today.");
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe(FinishReason.MAX_TOKENS);
    expect(chunks.at(-1)?.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 7, totalTokenCount: 16 });
    expect(gateway.requests[0]).toMatchObject({ stream: true, model: "gemini-test" });
  });

  test("parallel function calls, non-streaming and streaming; finishReason STOP", async () => {
    const calls = [
      { name: "get_weather", arguments: { city: "Paris" } },
      { name: "get_weather", arguments: { city: "Oslo" } },
    ];
    const { client, gateway } = await start({ script: [{ toolCalls: calls }, { text: "Checking.", toolCalls: calls }] });
    const config = { tools: [{ functionDeclarations: [weather] }] };
    const whole = await client.models.generateContent({ ...ask, config });
    expect(whole.functionCalls?.map((call) => [call.name, call.args])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Oslo" }],
    ]);
    expect(whole.candidates?.[0]?.finishReason).toBe(FinishReason.STOP);
    const chunks = await drain(client.models.generateContentStream({ ...ask, config }));
    // Text straight from the parts: the SDK's `.text` getter warns on chunks that also hold function calls.
    const text = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? "");
    expect(text.join("")).toBe("Checking.");
    expect(chunks.flatMap((chunk) => chunk.functionCalls ?? []).map((call) => call.args)).toEqual([{ city: "Paris" }, { city: "Oslo" }]);
    expect(gateway.requests[0]?.tools).toEqual(["get_weather"]);
  });

  test("function round trip: functionResponse seen, recorded, echoed by a dynamic turn", async () => {
    const { client, gateway } = await start({
      script: [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
        echoLastToolResult((result) => `The tool said: ${result}`),
      ],
    });
    const config = { tools: [{ functionDeclarations: [weather] }], systemInstruction: "Be brief." };
    const first = await client.models.generateContent({ ...ask, config });
    const call = first.functionCalls?.[0];
    const second = await client.models.generateContent({
      model: ask.model,
      config,
      contents: [
        { role: "user", parts: [{ text: ask.contents }] },
        { role: "model", parts: [{ functionCall: call }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "18°C, cloudy" } } }] },
      ],
    });
    expect(second.text).toBe('The tool said: {"output":"18°C, cloudy"}');
    const recorded = gateway.requests[1];
    expect(recorded?.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(recorded?.messages[0]?.text).toBe("Be brief.");
    expect(recorded?.messages[3]?.toolResults).toEqual([{ name: "get_weather", content: '{"output":"18°C, cloudy"}' }]);
    expect(recorded?.headers["x-goog-api-key"]).toBe("[redacted]");
    expect(JSON.stringify(gateway.requests)).not.toContain("AIza-test-secret");
  });

  test("429: the SDK's retryOptions retry it (it does not read Retry-After) and get the next turn", async () => {
    const { gateway } = await start({ script: [{ fault: "rate-limit", retryAfterSeconds: 0 }, { text: "after the wait" }] });
    const client = new GoogleGenAI({
      apiKey: "k",
      httpOptions: { baseUrl: gateway.url, retryOptions: { attempts: 3, initialDelay: 0.01 } },
    });
    expect((await client.models.generateContent(ask)).text).toBe("after the wait");
    expect(gateway.requests).toHaveLength(2);
  });

  test("429 and 5xx without retries: ApiError with Gemini's status words", async () => {
    const { client } = await start({
      script: [{ fault: "rate-limit", retryAfterSeconds: 2 }, { fault: "server-error" }, { fault: "server-error", status: 503 }],
    });
    const limited = await rejection(client.models.generateContent(ask));
    expect(limited).toBeInstanceOf(ApiError);
    expect(limited).toMatchObject({ status: 429 });
    expect(JSON.parse((limited as ApiError).message)).toMatchObject({
      error: { code: 429, status: "RESOURCE_EXHAUSTED", details: [{ retryDelay: "2s" }] },
    });
    expect(JSON.parse(((await rejection(client.models.generateContent(ask))) as ApiError).message)).toMatchObject({
      error: { code: 500, status: "INTERNAL" },
    });
    expect(JSON.parse(((await rejection(client.models.generateContent(ask))) as ApiError).message)).toMatchObject({
      error: { code: 503, status: "UNAVAILABLE" },
    });
  });

  test("malformed chunk mid-stream and malformed body make the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "malformed-chunk" }, { fault: "malformed-chunk" }] });
    expect(String(await rejection(drain(client.models.generateContentStream(ask))))).toMatch(/JSON/);
    expect(String(await rejection(client.models.generateContent(ask)))).toMatch(/JSON/);
  });

  test("disconnect mid-stream and mid-body make the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "disconnect" }, { fault: "disconnect" }] });
    expect(await rejection(drain(client.models.generateContentStream(ask)))).toBeInstanceOf(Error);
    expect(await rejection(client.models.generateContent(ask))).toBeInstanceOf(Error);
  });

  test("stall: the SDK's timeout ends a non-streaming and a streaming request", async () => {
    const { gateway } = await start({ script: [{ fault: "stall" }, { fault: "stall" }] });
    const client = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: gateway.url, timeout: 300 } });
    expect(String(await rejection(client.models.generateContent(ask)))).toMatch(/abort/i);
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const chunk of await client.models.generateContentStream(ask)) seen.push(chunk);
    })();
    expect(String(await rejection(reading))).toMatch(/abort/i);
    expect(seen).toHaveLength(1);
  });
});
