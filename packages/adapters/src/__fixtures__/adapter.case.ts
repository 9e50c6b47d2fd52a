/**
 * The one conformance suite every LLM adapter passes, run over the fake gateways of `@agentd/testkit`
 * (real HTTP on 127.0.0.1): text and tool calls, whole and streamed, parallel calls, tool results carried
 * into the next request, usage, retries on 429 honouring Retry-After, persistent 5xx, malformed chunks,
 * dropped connections, stalls, aborts, and the API key (sent in the right header, never in an error).
 *
 * Each dialect's test is one call: `runAdapterCases("anthropic", (s) => createAnthropic({ ...s, model }))`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import {
  addUsage,
  AgentdError,
  emptyUsage,
  type Usage,
  type LanguageModel,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ToolCallPart,
} from "@agentd/sdk/model";
import { type Dialect, echoLastToolResult, type FakeGateway, type FakeGatewayOptions, startFakeGateway } from "@agentd/testkit";

/** What the suite passes to the factory: where the gateway is and how patient to be. */
export interface CaseModelSettings {
  baseURL: string;
  apiKey: string;
  maxRetries?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  timeoutMs?: number;
}

/** The header each dialect carries its key in. */
const AUTH_HEADER: Record<Dialect, string> = {
  openai: "authorization",
  responses: "authorization",
  anthropic: "x-api-key",
  gemini: "x-goog-api-key",
};

const API_KEY = "sk-case-SECRET-0123456789abcdef";

const weatherTool = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city"],
    additionalProperties: false,
  },
};
const timeTool = { name: "get_time", inputSchema: { type: "object", properties: { zone: { type: "string" } } } };

const ask = (text = "What is the weather in Paris?"): ModelRequest => ({
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: text },
  ],
  tools: [weatherTool, timeTool],
});

/** Collect a stream: the parts, the text, and the complete tool calls. */
async function collect(stream: AsyncIterable<ModelStreamPart>) {
  const parts: ModelStreamPart[] = [];
  for await (const p of stream) parts.push(p);
  const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");
  const calls = parts.filter((p): p is Extract<ModelStreamPart, { type: "tool-call" }> => p.type === "tool-call");
  const finish = parts.at(-1);
  return { parts, text, calls, finish: finish?.type === "finish" ? finish : undefined };
}

/** The error a promise rejects with; fails when it resolves. */
async function rejection(p: Promise<unknown>): Promise<AgentdError> {
  try {
    await p;
  } catch (e) {
    if (!AgentdError.isInstance(e)) throw new Error(`expected an AgentdError, got ${String(e)}`);
    return e;
  }
  throw new Error("expected a rejection, got a result");
}

/** The three totals every dialect reports (the cache and reasoning split varies by dialect). */
const totals = ({ inputTokens, outputTokens, totalTokens }: Usage) => ({ inputTokens, outputTokens, totalTokens });

const textOf = (r: ModelResponse) => r.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
const callsOf = (r: ModelResponse) => r.content.filter((p): p is ToolCallPart => p.type === "tool-call");

/** Run every case against one dialect's adapter. */
export function runAdapterCases(dialect: Dialect, makeModel: (settings: CaseModelSettings) => LanguageModel): void {
  describe(`${dialect} adapter over the fake gateway`, () => {
    const gateways: FakeGateway[] = [];
    afterEach(async () => {
      await Promise.all(gateways.splice(0).map((g) => g.close()));
    });
    async function setup(options: Omit<FakeGatewayOptions, "dialect">, settings: Partial<CaseModelSettings> = {}) {
      const gateway = await startFakeGateway({ dialect, requireApiKey: API_KEY, ...options });
      gateways.push(gateway);
      const model = makeModel({ baseURL: gateway.url, apiKey: API_KEY, retryDelayMs: 5, ...settings });
      return { gateway, model };
    }

    test("text, generate: content, finish reason, usage, the conversation as sent", async () => {
      const { gateway, model } = await setup({ script: [{ text: "Sunny, 21°C.", usage: { input: 11, output: 7 } }] });
      const r = await model.generate(ask());
      expect(textOf(r)).toBe("Sunny, 21°C.");
      expect(r.finishReason).toBe("stop");
      expect(totals(r.usage)).toEqual({ inputTokens: 11, outputTokens: 7, totalTokens: 18 });
      const sent = gateway.requests[0];
      expect(sent?.stream).toBe(false);
      expect(sent?.rejected).toBeUndefined();
      expect(sent?.messages.map((m) => [m.role, m.text])).toEqual([
        ["system", "You are terse."],
        ["user", "What is the weather in Paris?"],
      ]);
      expect(sent?.tools).toEqual(["get_weather", "get_time"]);
    });

    test("text, stream: start/delta/end in order, finish last with usage", async () => {
      const { gateway, model } = await setup({ script: [{ text: "Sunny and warm in Paris today. ☀️", usage: { input: 9, output: 8 } }] });
      const s = await collect(model.stream(ask()));
      expect(s.text).toBe("Sunny and warm in Paris today. ☀️");
      const kinds = s.parts.map((p) => p.type);
      expect(kinds[0]).toBe("text-start");
      expect(kinds.filter((k) => k === "text-delta").length).toBeGreaterThan(1);
      expect(kinds.indexOf("text-end")).toBeGreaterThan(kinds.lastIndexOf("text-delta"));
      expect(s.finish).toMatchObject({ finishReason: "stop", usage: { inputTokens: 9, outputTokens: 8, totalTokens: 17 } });
      expect(gateway.requests[0]?.stream).toBe(true);
    });

    test("tool call, generate: name, id, arguments as an object", async () => {
      const args = { city: "Paris", days: 3, opts: { units: "metric", tags: ["a", "b"] } };
      const { model } = await setup({ script: [{ toolCalls: [{ name: "get_weather", arguments: args }] }] });
      const r = await model.generate(ask());
      const [call] = callsOf(r);
      expect(call?.toolName).toBe("get_weather");
      expect(call?.toolCallId).toBeTruthy();
      expect(call?.input).toEqual(args);
      expect(r.finishReason).toBe("tool-calls");
    });

    test("tool call, stream: arguments intact across chunks, complete call after its deltas", async () => {
      const args = { city: 'Zürich "quoted" {braces}', days: 10, nested: { deep: [1, { x: null }] } };
      const { model } = await setup({ script: [{ text: "Checking.", toolCalls: [{ name: "get_weather", arguments: args }] }] });
      const s = await collect(model.stream(ask()));
      expect(s.text).toBe("Checking.");
      expect(s.calls).toHaveLength(1);
      const call = s.calls[0];
      expect(call?.input).toEqual(args);
      const id = call?.toolCallId as string;
      const deltas = s.parts.flatMap((p) => (p.type === "tool-call-delta" && p.id === id ? [p.delta] : []));
      expect(JSON.parse(deltas.join(""))).toEqual(args);
      const kinds = s.parts.map((p) => (p.type.startsWith("tool-call") && "id" in p && p.id !== id ? "other" : p.type));
      expect(kinds.indexOf("tool-call-start")).toBeLessThan(kinds.indexOf("tool-call-delta"));
      expect(kinds.indexOf("tool-call-end")).toBeGreaterThan(kinds.lastIndexOf("tool-call-delta"));
      expect(kinds.indexOf("tool-call")).toBeGreaterThan(kinds.indexOf("tool-call-end"));
      expect(s.finish?.finishReason).toBe("tool-calls");
    });

    test("parallel tool calls, generate and stream: both, in order, distinct ids", async () => {
      const turn = {
        toolCalls: [
          { name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_time", arguments: { zone: "Europe/Paris" } },
        ],
      };
      const { model } = await setup({ script: [turn, turn] });
      const whole = callsOf(await model.generate(ask()));
      const streamed = (await collect(model.stream(ask()))).calls;
      for (const calls of [whole, streamed]) {
        expect(calls.map((c) => [c.toolName, c.input])).toEqual([
          ["get_weather", { city: "Paris" }],
          ["get_time", { zone: "Europe/Paris" }],
        ]);
        expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(2);
      }
    });

    test("tool results round-trip: the next request carries the calls and their results", async () => {
      const { gateway, model } = await setup({
        script: [
          {
            toolCalls: [
              { name: "get_weather", arguments: { city: "Paris" } },
              { name: "get_time", arguments: { zone: "CET" } },
            ],
          },
          echoLastToolResult((result) => `Echo: ${result}`),
        ],
      });
      const first = await model.generate(ask());
      const calls = callsOf(first);
      const messages: ModelMessage[] = [
        ...ask().messages,
        { role: "assistant", content: first.content },
        {
          role: "tool",
          content: [
            { type: "tool-result", toolCallId: calls[0]?.toolCallId as string, toolName: "get_weather", output: "21°C, sunny" },
            {
              type: "tool-result",
              toolCallId: calls[1]?.toolCallId as string,
              toolName: "get_time",
              output: "no such zone",
              isError: true,
            },
          ],
        },
      ];
      const second = await model.generate({ ...ask(), messages });
      expect(textOf(second)).toContain("no such zone");
      const sent = gateway.requests[1];
      expect(sent?.rejected).toBeUndefined();
      const assistant = sent?.messages.find((m) => m.role === "assistant");
      expect(assistant?.toolCalls.map((c) => [c.name, c.arguments])).toEqual([
        ["get_weather", { city: "Paris" }],
        ["get_time", { zone: "CET" }],
      ]);
      const results = sent?.messages.flatMap((m) => m.toolResults) ?? [];
      expect(results).toHaveLength(2);
      expect(results[0]?.content).toContain("21°C, sunny");
      expect(results[1]?.content).toContain("no such zone");
      expect(results.map((r) => r.name)).toEqual(["get_weather", "get_time"]);
      // Where the dialect has call ids, results answer the ids the model gave.
      for (const [i, r] of results.entries()) if (r.toolCallId !== undefined) expect(r.toolCallId).toBe(calls[i]?.toolCallId as string);
    });

    test("usage sums across requests", async () => {
      const { model } = await setup({
        script: [
          { text: "one", usage: { input: 10, output: 2 } },
          { text: "two", usage: { input: 20, output: 3 } },
        ],
      });
      const a = await model.generate(ask());
      const b = (await collect(model.stream(ask()))).finish?.usage ?? emptyUsage();
      expect(totals(addUsage(a.usage, b))).toEqual({ inputTokens: 30, outputTokens: 5, totalTokens: 35 });
    });

    test("429 then success: retried after the Retry-After the gateway asked for", async () => {
      const { gateway, model } = await setup({
        script: [
          { fault: "rate-limit", retryAfterSeconds: 1 },
          { text: "ok" },
          { fault: "rate-limit", retryAfterSeconds: 1 },
          { text: "streamed ok" },
        ],
      });
      let t0 = performance.now();
      const told: unknown[] = [];
      expect(textOf(await model.generate({ ...ask(), onRetry: (r) => told.push(r) }))).toBe("ok");
      // The caller hears of the retry (the run's timeline shows it as a step of the turn).
      expect(told).toMatchObject([{ retry: 1, status: 429 }]);
      // A lower bound only: waiting less than asked would be the bug; a loaded machine only waits longer.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
      t0 = performance.now();
      expect((await collect(model.stream(ask()))).text).toBe("streamed ok");
      expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
      expect(gateway.requests).toHaveLength(4);
    });

    test("persistent 500: E_UPSTREAM with the status, not retryable once the retries are spent", async () => {
      const { gateway, model } = await setup({ script: Array(3).fill({ fault: "server-error" }) }, { maxRetries: 2 });
      const e = await rejection(model.generate(ask()));
      expect(e.code).toBe("E_UPSTREAM");
      expect(e.retryable).toBe(false);
      expect(e.options.data).toMatchObject({ status: 500, provider: model.provider });
      expect(e.message).toContain("500");
      // The error names the endpoint it talked to (the provider is in its data).
      expect(e.message).toStartWith(`model endpoint ${gateway.url.replace(/\/$/, "")} returned HTTP 500`);
      expect(e.message).toContain("scripted by the fake gateway");
      expect(e.message).toEndWith("(3 attempts)");
      expect(gateway.requests).toHaveLength(3);
    });

    test("malformed chunk: a typed error, whole or streamed", async () => {
      const { model } = await setup({ script: [{ fault: "malformed-chunk" }, { fault: "malformed-chunk" }] }, { maxRetries: 0 });
      const whole = await rejection(model.generate(ask()));
      expect(whole.code).toBe("E_UPSTREAM");
      const streamed = await rejection(collect(model.stream(ask())));
      expect(streamed.code).toBe("E_UPSTREAM");
      expect(streamed.message).toContain("malformed");
    });

    test("disconnect mid-response: retried (whole); retried or a typed error (stream)", async () => {
      const { gateway, model } = await setup({
        script: [{ fault: "disconnect" }, { text: "recovered" }, { fault: "disconnect" }, { text: "recovered again" }],
      });
      expect(textOf(await model.generate(ask()))).toBe("recovered");
      expect(gateway.requests).toHaveLength(2);
      try {
        const s = await collect(model.stream(ask()));
        expect(s.text).toBe("recovered again");
        expect(gateway.requests).toHaveLength(4);
      } catch (e) {
        // Parts already went out before the drop: they cannot be taken back, so the error is the answer.
        expect(AgentdError.isInstance(e) && e.code === "E_UPSTREAM" && e.retryable).toBe(true);
      }
    });

    test("stall: the per-request timeout ends it with E_TIMEOUT, whole or streamed", async () => {
      const { gateway, model } = await setup({ script: [{ fault: "stall" }, { fault: "stall" }] }, { timeoutMs: 300, maxRetries: 0 });
      const whole = await rejection(model.generate(ask()));
      expect(whole.code).toBe("E_TIMEOUT");
      const streamed = await rejection(collect(model.stream(ask())));
      expect(streamed.code).toBe("E_TIMEOUT");
      expect(gateway.requests).toHaveLength(2);
    });

    test("abort: in flight, mid-stream, and during a retry wait, all E_ABORTED", async () => {
      const { gateway, model } = await setup(
        {
          script: [{ fault: "stall" }, { fault: "stall" }, { fault: "rate-limit", retryAfterSeconds: 30 }],
        },
        { maxRetryDelayMs: 60_000 },
      );
      for (const [n, run] of [
        [1, (signal: AbortSignal) => model.generate({ ...ask(), signal })],
        [2, (signal: AbortSignal) => collect(model.stream({ ...ask(), signal }))],
        [3, (signal: AbortSignal) => model.generate({ ...ask(), signal })],
      ] as const) {
        const controller = new AbortController();
        const pending = rejection(run(controller.signal));
        await gateway.waitForRequests(n);
        controller.abort();
        expect((await pending).code).toBe("E_ABORTED");
      }
      // The aborted retry wait never made its second attempt.
      expect(gateway.requests).toHaveLength(3);
    });

    test("API key: sent in the dialect's header, never in an error message", async () => {
      const { gateway, model } = await setup({ script: [{ text: "authorised" }, { fault: "server-error" }] }, { maxRetries: 0 });
      expect(textOf(await model.generate(ask()))).toBe("authorised");
      expect(gateway.requests[0]?.hasAuth).toBe(true);
      expect(gateway.requests[0]?.headers[AUTH_HEADER[dialect]]).toBe("[redacted]");
      const failed = await rejection(model.generate(ask()));
      expect(failed.message).not.toContain(API_KEY);

      const wrongKey = "sk-wrong-SECRET-fedcba9876543210";
      const other = makeModel({ baseURL: gateway.url, apiKey: wrongKey, maxRetries: 0 });
      const denied = await rejection(other.generate(ask()));
      expect(denied.code).toBe("E_UPSTREAM");
      expect(denied.options.data).toMatchObject({ status: 401 });
      expect(denied.retryable).toBe(false);
      expect(denied.message).not.toContain(wrongKey);
      expect(JSON.stringify(denied.options.data)).not.toContain(wrongKey);
    });

    test("per-request headers (W3C trace context) reach the gateway, whole and streamed; they never replace the key", async () => {
      const { gateway, model } = await setup({ script: [{ text: "one" }, { text: "two" }] });
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      // A header named like the credential must not displace it: the gateway requires the real key.
      const headers = { traceparent, tracestate: "v=1", [AUTH_HEADER[dialect]]: "spoofed" };
      expect(textOf(await model.generate({ ...ask(), headers }))).toBe("one");
      for await (const _ of model.stream({ ...ask(), headers })) void _;
      expect(gateway.requests.map((r) => [r.headers.traceparent, r.headers.tracestate])).toEqual([
        [traceparent, "v=1"],
        [traceparent, "v=1"],
      ]);
      expect(gateway.requests.every((r) => r.rejected === undefined)).toBe(true);
      const plain = await setup({ script: [{ text: "three" }] });
      await plain.model.generate(ask());
      expect(plain.gateway.requests[0]?.headers.traceparent).toBeUndefined();
    });
  });
}
