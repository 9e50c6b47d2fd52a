/**
 * Proof of prompt caching over a 10-turn tool-using run of the agentic loop against each fake gateway:
 * the cache fields in the requests (Anthropic `cache_control` breakpoints, at most 4), the cache usage the
 * gateways report read back into the run's usage, and the stable prefix, checked byte for byte on the
 * request bodies as they reached the wire.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { runLoop } from "@agentd/sdk/loop";
import type { Dialect, RecordedRequest, Turn } from "@agentd/testkit";
import { closeAll, gatewayFor, modelFor, weatherTools } from "./__fixtures__/run-support.ts";

afterEach(closeAll);

const CITIES = ["Paris", "Oslo", "Rome", "Lima", "Quito", "Accra", "Hanoi", "Perth", "Turin"];
/** Nine tool turns, then the answer: ten model requests. */
const tenTurns: Turn[] = [
  ...CITIES.map((city) => ({ toolCalls: [{ name: "get_weather", arguments: { city } }] })),
  { text: "Warmest: all at 21°C." },
];

const withoutMarkers = (v: unknown) => JSON.stringify(v, (k, x) => (k === "cache_control" ? undefined : x));
const body = (r: RecordedRequest | undefined) => JSON.parse(r?.bodyText ?? "{}") as Record<string, unknown>;

async function tenTurnRun(dialect: Dialect, stream: boolean) {
  const gateway = await gatewayFor({ dialect, script: tenTurns });
  const result = await runLoop({
    model: modelFor(dialect, gateway),
    tools: weatherTools(),
    instructions: "You compare the weather of cities. Always check each city with get_weather before answering.",
    input: `Which of ${CITIES.join(", ")} is warmest?`,
    runId: `cache-${dialect}`,
    stream,
  });
  expect(result.text).toBe("Warmest: all at 21°C.");
  expect(gateway.requests).toHaveLength(10);
  expect(gateway.requests.every((r) => r.rejected === undefined)).toBe(true);
  return { requests: gateway.requests, usage: result.usage };
}

describe("a 10-turn tool-using run caches its prefix", () => {
  test("anthropic: four breakpoints a request (tools, system, the last two user turns); writes then reads", async () => {
    const { requests, usage } = await tenTurnRun("anthropic", true);
    for (const r of requests) {
      const b = body(r);
      expect(r.bodyText.split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
      expect((b.tools as Array<Record<string, unknown>>).at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect((b.system as Array<Record<string, unknown>>)[0]?.cache_control).toEqual({ type: "ephemeral" });
      const last = (b.messages as Array<{ content: Array<Record<string, unknown>> }>).at(-1)?.content.at(-1);
      expect(last?.cache_control).toEqual({ type: "ephemeral" });
    }
    expect(requests[0]?.cache).toMatchObject({ read: 0 });
    expect(requests[0]?.cache?.write).toBeGreaterThan(0);
    for (const r of requests.slice(1)) expect(r.cache?.read).toBeGreaterThan(0);
    const reported = requests.reduce((sum, r) => ({ read: sum.read + (r.cache?.read ?? 0), write: sum.write + (r.cache?.write ?? 0) }), {
      read: 0,
      write: 0,
    });
    expect(usage).toMatchObject({ cacheReadTokens: reported.read, cacheWriteTokens: reported.write });
    expect(usage.cacheReadTokens).toBeGreaterThan(usage.inputTokens / 2);
  });

  for (const dialect of ["openai", "gemini"] as const)
    test(`${dialect}: automatic caching reads every repeated prefix; the run's usage carries it`, async () => {
      const { requests, usage } = await tenTurnRun(dialect, false);
      expect(requests[0]?.cache?.read).toBe(0);
      for (const r of requests.slice(1)) expect(r.cache?.read).toBeGreaterThan(0);
      expect(usage.cacheReadTokens).toBe(requests.reduce((n, r) => n + (r.cache?.read ?? 0), 0));
    });
});

describe("the prefix is byte-stable across turns", () => {
  test("openai: each request body begins with the bytes of the previous one's model and messages", async () => {
    const { requests } = await tenTurnRun("openai", true);
    for (let i = 1; i < requests.length; i++) {
      const before = body(requests[i - 1]);
      // The previous body up to its last message, as serialised bytes: `{"model":…,"messages":[…`.
      const prefix = JSON.stringify({ model: before.model, messages: before.messages }).slice(0, -2);
      expect(requests[i - 1]?.bodyText.startsWith(prefix)).toBe(true);
      expect(requests[i]?.bodyText.startsWith(prefix)).toBe(true);
      expect(JSON.stringify(body(requests[i]).tools)).toBe(JSON.stringify(before.tools));
    }
  });

  test("gemini: contents grow at the end only; systemInstruction and tools keep their bytes", async () => {
    const { requests } = await tenTurnRun("gemini", true);
    for (let i = 1; i < requests.length; i++) {
      const before = body(requests[i - 1]);
      const prefix = JSON.stringify({ contents: before.contents }).slice(0, -2);
      expect(requests[i - 1]?.bodyText.startsWith(prefix)).toBe(true);
      expect(requests[i]?.bodyText.startsWith(prefix)).toBe(true);
      const after = body(requests[i]);
      expect(JSON.stringify([after.systemInstruction, after.tools])).toBe(JSON.stringify([before.systemInstruction, before.tools]));
    }
  });

  test("anthropic: tools and system keep their bytes; the messages, breakpoints aside, grow at the end only", async () => {
    const { requests } = await tenTurnRun("anthropic", false);
    for (let i = 1; i < requests.length; i++) {
      const [before, after] = [body(requests[i - 1]), body(requests[i])];
      expect(JSON.stringify([after.tools, after.system])).toBe(JSON.stringify([before.tools, before.system]));
      const messages = withoutMarkers(before.messages).slice(0, -1);
      expect(withoutMarkers(after.messages).startsWith(messages)).toBe(true);
    }
  });

  for (const dialect of ["openai", "anthropic", "gemini"] as const)
    test(`${dialect}: two runs of the same agent open with the same bytes, so a later run reads the earlier one's cache`, async () => {
      // Later requests differ by the tool-call ids the (scripted) model makes up, as a real model's would.
      const [a, b] = [await tenTurnRun(dialect, false), await tenTurnRun(dialect, false)];
      expect(b.requests[0]?.bodyText).toBe(a.requests[0]?.bodyText as string);
    });
});
