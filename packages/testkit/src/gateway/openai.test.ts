/**
 * The official `openai` SDK is the oracle: every response the fake openai gateway serves, streamed or
 * not, must parse in it, and every fault must surface as the SDK's own error or retry.
 */
import { afterEach, describe, expect, test } from "bun:test";
import OpenAI, { type APIError } from "openai";
import { echoLastToolResult, startFakeGateway } from "./index.ts";
import type { FakeGateway, FakeGatewayOptions } from "./types.ts";

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

async function start(options: Omit<FakeGatewayOptions, "dialect">): Promise<{ gateway: FakeGateway; client: OpenAI }> {
  const gateway = await startFakeGateway({ dialect: "openai", ...options });
  open.push(gateway);
  return { gateway, client: new OpenAI({ baseURL: gateway.url, apiKey: "sk-test-secret", maxRetries: 0, logLevel: "off" }) };
}

/** The error `promise` rejects with; fails the test when it resolves. (APIPromise is a thenable, not a Promise.) */
async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a result");
}

const ask = { model: "gpt-test", messages: [{ role: "user" as const, content: "What is the weather in Paris?" }] };
const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather by city",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
};

describe("openai dialect, official SDK as oracle", () => {
  test("text turn, non-streaming: content, finish reason, usage, ids", async () => {
    const { client } = await start({ script: [{ text: "Sunny, 21°C.", usage: { input: 12, output: 5 } }] });
    const completion = await client.chat.completions.create(ask);
    expect(completion.id).toStartWith("chatcmpl-");
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("gpt-test");
    expect(completion.choices[0]?.message).toMatchObject({ role: "assistant", content: "Sunny, 21°C." });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
  });

  test("text turn, streaming: deltas rebuild the text; include_usage adds a final usage chunk", async () => {
    const { client } = await start({ script: [{ text: "Sunny and warm in Paris today.", usage: { input: 9, output: 7 } }] });
    const stream = await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } });
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      const choice = chunk.choices[0];
      if (choice?.delta.content) deltas.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Sunny and warm in Paris today.");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 });
  });

  test("parallel tool calls, non-streaming: ids, names, JSON-string arguments, finish tool_calls", async () => {
    const { client } = await start({
      script: [
        {
          toolCalls: [
            { name: "get_weather", arguments: { city: "Paris" } },
            { name: "get_weather", arguments: { city: "Oslo" }, id: "call_fixed" },
          ],
        },
      ],
    });
    const completion = await client.chat.completions.create({ ...ask, tools: [weatherTool] });
    const message = completion.choices[0]?.message;
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.content).toBeNull();
    const calls = (message?.tool_calls ?? []).map((call) => (call.type === "function" ? call : undefined));
    expect(calls[0]?.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(calls[1]?.id).toBe("call_fixed");
    expect(calls.map((call) => JSON.parse(call?.function.arguments ?? "null"))).toEqual([{ city: "Paris" }, { city: "Oslo" }]);
  });

  test("parallel tool calls, streaming: the SDK's accumulator rebuilds them from argument fragments", async () => {
    const { client } = await start({
      script: [
        {
          text: "Checking both.",
          toolCalls: [
            { name: "get_weather", arguments: { city: "Paris", units: "metric" } },
            { name: "get_weather", arguments: { city: "Oslo" } },
          ],
        },
      ],
    });
    const fragments: string[] = [];
    const stream = client.chat.completions.stream({ ...ask, tools: [weatherTool] });
    stream.on("chunk", (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) if (call.function?.arguments) fragments.push(call.function.arguments);
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.content).toBe("Checking both.");
    const calls = message?.tool_calls ?? [];
    expect(calls).toHaveLength(2);
    expect(calls.map((call) => (call.type === "function" ? [call.function.name, JSON.parse(call.function.arguments)] : []))).toEqual([
      ["get_weather", { city: "Paris", units: "metric" }],
      ["get_weather", { city: "Oslo" }],
    ]);
    expect(fragments.length).toBeGreaterThan(2);
  });

  test("tool round trip: tool message seen, recorded, echoed by a dynamic turn", async () => {
    const { client, gateway } = await start({
      script: [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
        echoLastToolResult((result) => `The tool said: ${result}`),
      ],
    });
    const system = { role: "system" as const, content: "Be brief." };
    const first = await client.chat.completions.create({ ...ask, messages: [system, ...ask.messages], tools: [weatherTool] });
    const assistant = first.choices[0]?.message;
    const callId = assistant?.tool_calls?.[0]?.id ?? "";
    const second = await client.chat.completions.create({
      ...ask,
      tools: [weatherTool],
      messages: [
        system,
        ...ask.messages,
        { role: "assistant", content: null, tool_calls: assistant?.tool_calls ?? [] },
        { role: "tool", tool_call_id: callId, content: "18°C, cloudy" },
      ],
    });
    expect(second.choices[0]?.message.content).toBe("The tool said: 18°C, cloudy");
    const recorded = gateway.requests[1];
    expect(recorded).toMatchObject({
      dialect: "openai",
      path: "/v1/chat/completions",
      model: "gpt-test",
      stream: false,
      tools: ["get_weather"],
      hasAuth: true,
    });
    expect(recorded?.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(recorded?.messages[2]?.toolCalls).toEqual([{ id: callId, name: "get_weather", arguments: { city: "Paris" } }]);
    expect(recorded?.messages[3]?.toolResults).toEqual([{ toolCallId: callId, name: "get_weather", content: "18°C, cloudy" }]);
    expect(recorded?.lastToolResult).toBe("18°C, cloudy");
    expect(recorded?.headers.authorization).toBe("[redacted]");
    expect(JSON.stringify(gateway.requests)).not.toContain("sk-test-secret");
  });

  test("429 with Retry-After: the SDK retries on its own and gets the next turn", async () => {
    const { gateway } = await start({ script: [{ fault: "rate-limit", retryAfterSeconds: 0 }, { text: "after the wait" }] });
    const client = new OpenAI({ baseURL: gateway.url, apiKey: "sk-test", maxRetries: 2 });
    const { data, response } = await client.chat.completions.create(ask).withResponse();
    expect(data.choices[0]?.message.content).toBe("after the wait");
    expect(response.status).toBe(200);
    expect(gateway.requests).toHaveLength(2);
  });

  test("429 without retries left: RateLimitError in OpenAI's error shape", async () => {
    const { client } = await start({ script: [{ fault: "rate-limit", retryAfterSeconds: 1 }] });
    const error = await rejection(client.chat.completions.create(ask));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect((error as APIError).headers?.get("retry-after")).toBe("1");
  });

  test("500 surfaces as InternalServerError; 503 keeps its status", async () => {
    const { client } = await start({ script: [{ fault: "server-error" }, { fault: "server-error", status: 503 }] });
    const first = await rejection(client.chat.completions.create(ask));
    expect(first).toBeInstanceOf(OpenAI.InternalServerError);
    expect(first).toMatchObject({ status: 500, type: "server_error" });
    const second = await rejection(client.chat.completions.create(ask));
    expect(second).toMatchObject({ status: 503 });
  });

  test("malformed chunk mid-stream makes the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "malformed-chunk" }] });
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    const read = async () => {
      for await (const _chunk of stream) void _chunk;
    };
    expect(String(await rejection(read()))).toMatch(/JSON/);
  });

  test("malformed non-streaming body makes the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "malformed-chunk" }] });
    expect(await rejection(client.chat.completions.create(ask))).toBeInstanceOf(Error);
  });

  test("disconnect mid-stream and mid-body make the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "disconnect" }, { fault: "disconnect" }] });
    const stream = client.chat.completions.stream({ ...ask });
    expect(await rejection(stream.finalChatCompletion())).toBeInstanceOf(Error);
    expect(await rejection(client.chat.completions.create(ask))).toBeInstanceOf(Error);
  });

  test("stall: the SDK's timeout ends a non-streaming request, an AbortSignal a streaming one", async () => {
    const { client, gateway } = await start({ script: [{ fault: "stall" }, { fault: "stall" }] });
    expect(await rejection(client.chat.completions.create(ask, { timeout: 300 }))).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    const controller = new AbortController();
    const stream = client.chat.completions.stream({ ...ask }, { signal: controller.signal });
    stream.on("chunk", () => controller.abort());
    expect(await rejection(stream.finalChatCompletion())).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(gateway.requests).toHaveLength(2);
  });
});
