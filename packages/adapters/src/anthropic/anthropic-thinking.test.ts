import { describe, expect, test } from "bun:test";
import { AgentdError } from "@agentd/sdk";
import type { ModelMessage, ModelStreamPart } from "@agentd/sdk/model";
import { jsonResponse, readFixture, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import { createAnthropic, type AnthropicSettings } from "./anthropic-language-model.ts";

const tools = [
  { name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } },
  { name: "get_time", inputSchema: { type: "object" } },
];
const ok = () =>
  jsonResponse({ content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } });

async function send(
  settings: Partial<AnthropicSettings>,
  request: Partial<Parameters<ReturnType<typeof createAnthropic>["generate"]>[0]> = {},
) {
  const { fetch, sent } = scriptedFetch([ok]);
  await createAnthropic({ model: "claude-x", apiKey: "k", fetch, ...settings }).generate({
    messages: [{ role: "user", content: "hi" }],
    ...request,
  });
  return sent[0]?.body as Record<string, unknown>;
}

/** A tool-use exchange with thinking, as the loop holds it. */
const exchange: ModelMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Paris?" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", provider: "anthropic", text: "Call the tool.", signature: "SIG-A" },
      { type: "reasoning", provider: "anthropic", text: "", redactedData: "REDACTED-B" },
      { type: "reasoning", provider: "gemini", text: "not ours", signature: "G" },
      { type: "tool-call", toolCallId: "toolu_1", toolName: "get_weather", input: { city: "Paris" } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_1", toolName: "get_weather", output: "21°C" }] },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "toolu_2", toolName: "get_time", input: {} }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_2", toolName: "get_time", output: "noon" }] },
];

describe("anthropic thinking", () => {
  test("stream: thinking and redacted_thinking become reasoning parts (never text), signature assembled, split usage", async () => {
    const { fetch } = scriptedFetch([
      () => sseResponse(readFixture(import.meta.url, "anthropic-thinking-tool-use.chunks.jsonl"), { eventNames: true }),
    ]);
    const parts: ModelStreamPart[] = [];
    for await (const p of createAnthropic({ model: "claude-x", apiKey: "k", fetch }).stream({
      messages: [{ role: "user", content: "hi" }],
      tools,
    }))
      parts.push(p);
    expect(parts.filter((p) => p.type === "text-delta")).toEqual([]);
    expect(
      parts
        .filter((p) => p.type === "reasoning-delta")
        .map((p) => (p as { delta: string }).delta)
        .join(""),
    ).toBe("The user wants the weather; I should call get_weather for Paris.");
    expect(parts.filter((p) => p.type === "reasoning" || p.type === "tool-call")).toEqual([
      {
        type: "reasoning",
        provider: "anthropic",
        text: "The user wants the weather; I should call get_weather for Paris.",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
      },
      {
        type: "reasoning",
        provider: "anthropic",
        text: "",
        redactedData: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
      },
      { type: "tool-call", toolCallId: "toolu_01Th1nkCa11", toolName: "get_weather", input: { city: "Paris" } },
    ]);
    expect(parts.at(-1)).toEqual({
      type: "finish",
      finishReason: "tool-calls",
      usage: { inputTokens: 492, outputTokens: 96, totalTokens: 588, cacheReadTokens: 0, cacheWriteTokens: 480, reasoningTokens: 70 },
      modelId: "claude-sonnet-4-5-20250929",
    });
  });

  test("reasoning goes back first and unchanged; another provider's is dropped", async () => {
    const body = await send({ promptCache: { enabled: false } }, { messages: exchange, tools });
    const messages = body.messages as Array<{ role: string; content: unknown[] }>;
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Call the tool.", signature: "SIG-A" },
        { type: "redacted_thinking", data: "REDACTED-B" },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ],
    });
  });

  test("enabled: budget on top of max_tokens, no temperature, a forced tool choice becomes auto", async () => {
    const body = await send({ thinking: { budgetTokens: 2048 } }, { temperature: 0.3, tools, toolChoice: "required" });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(body.max_tokens).toBe(2048 + 4096);
    expect(body.temperature).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: "auto" });
  });

  test("adaptive with effort, explicit off, and configuration mistakes", async () => {
    const adaptive = await send({ thinking: { adaptive: true, effort: "high" } });
    expect(adaptive.thinking).toEqual({ type: "adaptive" });
    expect(adaptive.output_config).toEqual({ effort: "high" });
    expect((await send({ thinking: { enabled: false } }, { temperature: 0.3 })).thinking).toEqual({ type: "disabled" });
    expect((await send({})).thinking).toBeUndefined();
    for (const thinking of [{ budgetTokens: 512 }, {}]) {
      let error: unknown;
      try {
        createAnthropic({ model: "claude-x", thinking });
      } catch (e) {
        error = e;
      }
      expect(AgentdError.isInstance(error) && error.code === "E_CONFIG_INVALID" && !error.message.includes("\n")).toBe(true);
    }
  });
});

describe("anthropic prompt caching", () => {
  const marked = (body: Record<string, unknown>) => JSON.stringify(body).split('"cache_control"').length - 1;

  test("breakpoints: last tool, system, the last message and the user turn before it — four, never on thinking", async () => {
    const body = await send({ promptCache: { ttl: "1h" } }, { messages: exchange, tools });
    const control = { type: "ephemeral", ttl: "1h" };
    expect(marked(body)).toBe(4);
    expect((body.tools as Array<Record<string, unknown>>).map((t) => t.cache_control)).toEqual([undefined, control]);
    expect(body.system).toEqual([{ type: "text", text: "Be brief.", cache_control: control }]);
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((m) => m.content.map((b) => b.cache_control !== undefined))).toEqual([
      [false],
      [false, false, false],
      [true],
      [false],
      [true],
    ]);
  });

  test("a short conversation marks what it has; off sends none; the caller's messages are not touched", async () => {
    const body = await send({}, {});
    expect(marked(body)).toBe(1);
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }]);
    const before = JSON.stringify(exchange);
    expect(marked(await send({ promptCache: { enabled: false } }, { messages: exchange, tools }))).toBe(0);
    await send({}, { messages: exchange, tools });
    expect(JSON.stringify(exchange)).toBe(before);
  });
});
