/**
 * The official `@anthropic-ai/sdk` is the oracle: every response the fake anthropic gateway serves,
 * streamed or not, must parse in it (its MessageStream checks event order), and every fault must
 * surface as the SDK's own error or retry.
 */
import { afterEach, describe, expect, test } from "bun:test";
import Anthropic, { type APIError } from "@anthropic-ai/sdk";
import { echoLastToolResult, startFakeGateway } from "./index.ts";
import type { FakeGateway, FakeGatewayOptions } from "./types.ts";

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

async function start(options: Omit<FakeGatewayOptions, "dialect">): Promise<{ gateway: FakeGateway; client: Anthropic }> {
  const gateway = await startFakeGateway({ dialect: "anthropic", ...options });
  open.push(gateway);
  return { gateway, client: new Anthropic({ baseURL: gateway.url, apiKey: "sk-ant-test-secret", maxRetries: 0, logLevel: "off" }) };
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

const ask = { model: "claude-test", max_tokens: 256, messages: [{ role: "user" as const, content: "Weather in Paris?" }] };
const weatherTool = {
  name: "get_weather",
  description: "Weather by city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
};

describe("anthropic dialect, official SDK as oracle", () => {
  test("text turn, non-streaming: content, stop_reason, usage, ids", async () => {
    const { client } = await start({ script: [{ text: "Sunny, 21°C.", usage: { input: 12, output: 5 } }] });
    const message = await client.messages.create(ask);
    expect(message.id).toMatch(/^msg_01/);
    expect(message).toMatchObject({ type: "message", role: "assistant", model: "claude-test", stop_reason: "end_turn" });
    expect(message.content).toMatchObject([{ type: "text", text: "Sunny, 21°C." }]);
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
  });

  test("text turn, streaming: the MessageStream accepts the event order and rebuilds the text", async () => {
    const { client } = await start({
      script: [{ text: "Sunny and warm in Paris today.", usage: { input: 9, output: 7 }, finishReason: "length" }],
    });
    const stream = client.messages.stream(ask);
    const deltas: string[] = [];
    stream.on("text", (delta) => deltas.push(delta));
    const message = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Sunny and warm in Paris today.");
    expect(message.content).toMatchObject([{ type: "text", text: "Sunny and warm in Paris today." }]);
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 7 });
  });

  test("parallel tool_use, non-streaming and streaming (input_json_delta fragments)", async () => {
    const calls = [
      { name: "get_weather", arguments: { city: "Paris", units: "metric" } },
      { name: "get_weather", arguments: { city: "Oslo" }, id: "toolu_fixed" },
    ];
    const { client } = await start({ script: [{ text: "Checking both.", toolCalls: calls }, { toolCalls: calls }] });
    const whole = await client.messages.create({ ...ask, tools: [weatherTool] });
    expect(whole.stop_reason).toBe("tool_use");
    expect(whole.content.map((block) => block.type)).toEqual(["text", "tool_use", "tool_use"]);
    const stream = client.messages.stream({ ...ask, tools: [weatherTool] });
    const fragments: string[] = [];
    stream.on("inputJson", (fragment) => fragments.push(fragment));
    const streamed = await stream.finalMessage();
    expect(streamed.stop_reason).toBe("tool_use");
    const uses = streamed.content.filter((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
    expect(uses.map((use) => [use.name, use.input])).toEqual([
      ["get_weather", { city: "Paris", units: "metric" }],
      ["get_weather", { city: "Oslo" }],
    ]);
    expect(uses[0]?.id).toMatch(/^toolu_01[A-Za-z0-9]{22}$/);
    expect(uses[1]?.id).toBe("toolu_fixed");
    expect(fragments.filter((fragment) => fragment !== "").length).toBeGreaterThan(2);
  });

  test("tool round trip: tool_result seen, recorded, echoed by a dynamic turn", async () => {
    const { client, gateway } = await start({
      script: [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
        echoLastToolResult((result) => `The tool said: ${result}`),
      ],
    });
    const first = await client.messages.create({ ...ask, tools: [weatherTool], system: "Be brief." });
    const use = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use");
    const second = await client.messages.create({
      ...ask,
      tools: [weatherTool],
      system: "Be brief.",
      messages: [
        ...ask.messages,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use?.id ?? "", content: "18°C, cloudy" }] },
      ],
    });
    expect(second.content).toMatchObject([{ type: "text", text: "The tool said: 18°C, cloudy" }]);
    const recorded = gateway.requests[1];
    expect(recorded?.tools).toEqual(["get_weather"]);
    expect(recorded?.lastToolResult).toBe("18°C, cloudy");
    expect(recorded?.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(recorded?.messages[3]?.toolResults).toEqual([{ toolCallId: use?.id, name: "get_weather", content: "18°C, cloudy" }]);
    // This SDK sends the key as a Bearer token; either way it is recorded redacted.
    expect(recorded?.headers.authorization ?? recorded?.headers["x-api-key"]).toBe("[redacted]");
    expect(recorded?.hasAuth).toBe(true);
    expect(JSON.stringify(gateway.requests)).not.toContain("sk-ant-test-secret");
  });

  test("429 with Retry-After: the SDK retries on its own and gets the next turn", async () => {
    const { gateway } = await start({ script: [{ fault: "rate-limit", retryAfterSeconds: 0 }, { text: "after the wait" }] });
    const client = new Anthropic({ baseURL: gateway.url, apiKey: "k", maxRetries: 2 });
    const message = await client.messages.create(ask);
    expect(message.content).toMatchObject([{ type: "text", text: "after the wait" }]);
    expect(gateway.requests).toHaveLength(2);
  });

  test("429 and 5xx without retries: the SDK's typed errors with Anthropic's error types", async () => {
    const { client } = await start({
      script: [{ fault: "rate-limit", retryAfterSeconds: 1 }, { fault: "server-error" }, { fault: "server-error", status: 529 }],
    });
    const limited = await rejection(client.messages.create(ask));
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect((limited as APIError).error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    const failed = await rejection(client.messages.create(ask));
    expect(failed).toBeInstanceOf(Anthropic.InternalServerError);
    expect((failed as APIError).error).toMatchObject({ type: "error", error: { type: "api_error" } });
    const overloaded = await rejection(client.messages.create(ask));
    expect(overloaded).toBeInstanceOf(Anthropic.OverloadedError);
    expect(overloaded).toMatchObject({ status: 529, error: { error: { type: "overloaded_error" } } });
  });

  test("malformed chunk mid-stream and malformed body make the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "malformed-chunk" }, { fault: "malformed-chunk" }] });
    expect(String(await rejection(client.messages.stream(ask).finalMessage()))).toMatch(/JSON/);
    expect(String(await rejection(client.messages.create(ask)))).toMatch(/JSON/);
  });

  test("disconnect mid-stream and mid-body make the SDK throw", async () => {
    const { client } = await start({ script: [{ fault: "disconnect" }, { fault: "disconnect" }] });
    expect(await rejection(client.messages.stream(ask).finalMessage())).toBeInstanceOf(Error);
    expect(await rejection(client.messages.create(ask))).toBeInstanceOf(Error);
  });

  test("stall: an AbortSignal ends both a non-streaming and a streaming request", async () => {
    // The SDK's `timeout` only covers the wait for headers; a stall after headers needs a signal.
    const { client } = await start({ script: [{ fault: "stall" }, { fault: "stall" }] });
    expect(String(await rejection(client.messages.create(ask, { signal: AbortSignal.timeout(300) })))).toMatch(/abort/i);
    const controller = new AbortController();
    const stream = client.messages.stream(ask, { signal: controller.signal });
    const seen: string[] = [];
    stream.on("streamEvent", (event) => {
      seen.push(event.type);
      controller.abort();
    });
    expect(await rejection(stream.finalMessage())).toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(seen).toEqual(["message_start"]);
  });
});
