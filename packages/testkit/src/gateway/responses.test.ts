/**
 * The official `openai` SDK is the oracle for the fake Responses gateway: every response it serves,
 * streamed (`client.responses.stream`, whose accumulator checks the event order and item identities) or
 * not, parses; the API's rules on call ids, reasoning items and stored responses are enforced as 400s the
 * SDK surfaces as its own errors.
 */
import { afterEach, describe, expect, test } from "bun:test";
import OpenAI, { BadRequestError, RateLimitError } from "openai";
import { echoLastToolResult, startFakeGateway } from "./index.ts";
import type { FakeGateway, FakeGatewayOptions } from "./types.ts";

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((gateway) => gateway.close()));
});

async function start(options: Omit<FakeGatewayOptions, "dialect">): Promise<{ gateway: FakeGateway; client: OpenAI }> {
  const gateway = await startFakeGateway({ dialect: "responses", ...options });
  open.push(gateway);
  return { gateway, client: new OpenAI({ baseURL: gateway.url, apiKey: "sk-test-secret", maxRetries: 0, logLevel: "off" }) };
}

async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, got a result");
}

const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather by city",
  strict: false,
  parameters: { type: "object", properties: { city: { type: "string" } } },
};

describe("responses dialect, official SDK as oracle", () => {
  test("text, not streamed: output_text, status, usage with cached and reasoning tokens", async () => {
    const { client, gateway } = await start({
      script: [{ text: "Sunny, 21°C.", reasoning: "Check the sky.", usage: { input: 12, output: 5, reasoning: 3 } }],
    });
    const response = await client.responses.create({
      model: "gpt-test",
      instructions: "Be terse.",
      input: "Weather in Paris?",
      reasoning: { effort: "low", summary: "auto" },
    });
    expect(response.id).toStartWith("resp_");
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Sunny, 21°C.");
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(response.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 8,
      total_tokens: 20,
      output_tokens_details: { reasoning_tokens: 3 },
      input_tokens_details: { cached_tokens: 0 },
    });
    expect(gateway.requests[0]?.messages.map((m) => [m.role, m.text])).toEqual([
      ["system", "Be terse."],
      ["user", "Weather in Paris?"],
    ]);
  });

  test("streamed text: the SDK's accumulator rebuilds the final response from the events", async () => {
    const { client } = await start({ script: [{ text: "Sunny and warm in Paris today.", reasoning: "Think first." }] });
    const stream = client.responses.stream({
      model: "gpt-test",
      input: "Weather?",
      include: ["reasoning.encrypted_content"],
      store: false,
    });
    const deltas: string[] = [];
    const summary: string[] = [];
    const types = new Set<string>();
    stream.on("response.output_text.delta", (e) => deltas.push(e.delta));
    stream.on("response.reasoning_summary_text.delta", (e) => summary.push(e.delta));
    stream.on("event", (e) => types.add(e.type));
    const final = await stream.finalResponse();
    expect(deltas.join("")).toBe("Sunny and warm in Paris today.");
    expect(summary.join("")).toBe("Think first.");
    expect(final.output_text).toBe("Sunny and warm in Paris today.");
    const reasoning = final.output.find((item) => item.type === "reasoning");
    expect(typeof reasoning?.encrypted_content).toBe("string");
    expect([...types]).toEqual(
      expect.arrayContaining([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.done",
        "response.output_item.done",
        "response.completed",
      ]),
    );
  });

  test("streamed function calls, answered by call_id; an output for an unknown call is a 400", async () => {
    const { client, gateway } = await start({
      script: [
        {
          toolCalls: [
            { name: "get_weather", arguments: { city: "Paris" } },
            { name: "get_weather", arguments: { city: "Oslo" } },
          ],
        },
        echoLastToolResult(),
      ],
    });
    const stream = client.responses.stream({ model: "gpt-test", input: "Weather?", tools: [weatherTool], store: false });
    const argumentDeltas: string[] = [];
    stream.on("response.function_call_arguments.delta", (e) => argumentDeltas.push(e.delta));
    const final = await stream.finalResponse();
    const calls = final.output.filter((item) => item.type === "function_call");
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Oslo" }],
    ]);
    expect(argumentDeltas.join("")).toBe(calls.map((c) => c.arguments).join(""));
    const answered = await client.responses.create({
      model: "gpt-test",
      store: false,
      tools: [weatherTool],
      input: [
        { role: "user", content: "Weather?" },
        ...calls,
        ...calls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: `${c.call_id}: 21°C` })),
      ],
    });
    expect(answered.output_text).toBe(`${calls[1]?.call_id}: 21°C`);
    const unknown = await rejection(
      client.responses.create({
        model: "gpt-test",
        input: [
          { role: "user", content: "x" },
          { type: "function_call_output", call_id: "call_nope", output: "1" },
        ],
      }),
    );
    expect(unknown).toBeInstanceOf(BadRequestError);
    expect((unknown as Error).message).toContain("No tool call found for function call output with call_id call_nope");
    const unanswered = await rejection(client.responses.create({ model: "gpt-test", input: [{ role: "user", content: "x" }, calls[0]!] }));
    expect((unanswered as Error).message).toContain("No tool output found for function call");
    expect(gateway.requests.filter((r) => r.rejected).length).toBe(2);
  });

  test("store: false — reasoning comes back only with its encrypted content, unchanged; require: with its call", async () => {
    const { client } = await start({
      reasoningPassBack: "require",
      script: [{ reasoning: "Need the weather.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }, { text: "21°C" }],
    });
    const first = await client.responses.create({
      model: "gpt-test",
      input: "Weather?",
      tools: [weatherTool],
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { effort: "low" },
    });
    const [reasoning, call] = first.output;
    if (reasoning?.type !== "reasoning" || call?.type !== "function_call") throw new Error("expected reasoning, then a call");
    const output = { type: "function_call_output" as const, call_id: call.call_id, output: "21°C" };
    const ask = (items: OpenAI.Responses.ResponseInputItem[]) =>
      client.responses.create({
        model: "gpt-test",
        store: false,
        tools: [weatherTool],
        input: [{ role: "user", content: "Weather?" }, ...items, output],
      });
    const tampered = await rejection(ask([{ ...reasoning, encrypted_content: `${reasoning.encrypted_content}x` }, call]));
    expect((tampered as Error).message).toContain("could not be verified");
    const bare = await rejection(ask([{ ...reasoning, encrypted_content: null }, call]));
    expect((bare as Error).message).toContain("Items are not persisted when `store` is set to false");
    const dropped = await rejection(ask([call]));
    expect((dropped as Error).message).toContain("without its required 'reasoning' item");
    const ok = await ask([reasoning, call]);
    expect(ok.output_text).toBe("21°C");
  });

  test("previous_response_id continues a stored response; an unknown one is a 400", async () => {
    const { client, gateway } = await start({
      script: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }, echoLastToolResult()],
    });
    const first = await client.responses.create({ model: "gpt-test", input: "Weather?", tools: [weatherTool] });
    const call = first.output.find((item) => item.type === "function_call");
    const next = await client.responses.create({
      model: "gpt-test",
      previous_response_id: first.id,
      tools: [weatherTool],
      input: [{ type: "function_call_output", call_id: call!.call_id, output: "sunny" }],
    });
    expect(next.output_text).toBe("sunny");
    expect(next.previous_response_id).toBe(first.id);
    expect(gateway.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    const missing = await rejection(client.responses.create({ model: "gpt-test", previous_response_id: "resp_nope", input: "hi" }));
    expect((missing as Error).message).toContain("Previous response with id 'resp_nope' not found");
  });

  test("chat completions habits are refused the way the API refuses them", async () => {
    const { client } = await start({ script: [] });
    const format = await rejection(
      client.responses.create({ model: "gpt-test", input: "x", response_format: { type: "json_object" } } as never),
    );
    expect((format as Error).message).toContain("moved to 'text.format'");
    const nested = await rejection(
      client.responses.create({ model: "gpt-test", input: "x", tools: [{ type: "function", function: { name: "f" } }] } as never),
    );
    expect((nested as Error).message).toContain("Missing required parameter: 'tools[0].name'");
    const small = await rejection(client.responses.create({ model: "gpt-test", input: "x", max_output_tokens: 8 }));
    expect((small as Error).message).toContain("Expected a value >= 16");
  });

  test("faults: a 429 is the SDK's RateLimitError; a length stop is an incomplete response", async () => {
    const { client } = await start({
      script: [
        { fault: "rate-limit", retryAfterSeconds: 1 },
        { text: "cut sho", finishReason: "length" },
      ],
    });
    expect(await rejection(client.responses.create({ model: "gpt-test", input: "x" }))).toBeInstanceOf(RateLimitError);
    const stream = client.responses.stream({ model: "gpt-test", input: "x" });
    const final = await stream.finalResponse();
    expect(final.status).toBe("incomplete");
    expect(final.incomplete_details?.reason).toBe("max_output_tokens");
  });
});
