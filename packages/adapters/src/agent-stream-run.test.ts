/**
 * `agent.stream()` end to end over each dialect: the real adapter (`createModel`) streaming from the
 * testkit's fake gateway over loopback HTTP. Reasoning and text arrive as deltas, the tool call with its
 * arguments and a summary of its result, usage per turn, then the finish; a content filter finishes as a
 * failure; a stalled response is cancelled by the caller's signal.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type AgentStreamEvent, createAgent } from "@agentd/sdk";
import type { Dialect } from "@agentd/testkit";
import { closeAll, gatewayFor, modelFor, THINKING, weatherTools } from "./__fixtures__/run-support.ts";

afterEach(closeAll);

const DIALECTS: Dialect[] = ["openai", "anthropic", "gemini"];

async function collect(stream: AsyncIterable<AgentStreamEvent>): Promise<AgentStreamEvent[]> {
  const events: AgentStreamEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

describe.each(DIALECTS)("agent.stream over %s", (dialect) => {
  test("reasoning and text deltas, the tool call and its result, usage per turn, then finish", async () => {
    const gateway = await gatewayFor({
      dialect,
      script: [
        { reasoning: "Weather first, then answer.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
        { reasoning: "The tool said clear skies.", text: "Paris is 21°C and clear right now." },
      ],
    });
    const tools = weatherTools();
    const agent = createAgent({ model: modelFor(dialect, gateway, { thinking: THINKING[dialect] }), tools });
    try {
      const events = await collect(agent.stream("Weather in Paris?", { runId: `stream-${dialect}` }));
      const types = events.map((e) => e.type);
      expect(types[0]).toBe("run-start");
      expect(types.at(-1)).toBe("finish");
      expect(gateway.requests.map((r) => r.stream)).toEqual([true, true]);

      const reasoning = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.delta] : [])).join("");
      expect(reasoning).toContain("Weather first, then answer.");
      expect(reasoning).toContain("The tool said clear skies.");
      const text = events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : []));
      expect(text.length).toBeGreaterThan(1);
      expect(text.join("")).toBe("Paris is 21°C and clear right now.");

      const start = events.find((e) => e.type === "tool-call-start");
      expect(start).toMatchObject({ name: "get_weather", arguments: { city: "Paris" }, turn: 1 });
      const end = events.find((e) => e.type === "tool-call-end");
      expect(end).toMatchObject({ name: "get_weather", isError: false, summary: "Paris: 21°C, clear" });
      expect(types.indexOf("tool-call-start")).toBeLessThan(types.indexOf("tool-call-end"));
      // Deltas of a turn come between its model-start and its model-end.
      const secondStart = types.lastIndexOf("model-start");
      expect(types.indexOf("text-delta")).toBeGreaterThan(secondStart);
      expect(types.lastIndexOf("text-delta")).toBeLessThan(types.lastIndexOf("model-end"));

      const ends = events.filter((e) => e.type === "model-end");
      expect(ends.map((e) => e.type === "model-end" && e.finishReason)).toEqual(["tool-calls", "stop"]);
      for (const e of ends) expect(e.type === "model-end" && e.usage.totalTokens).toBeGreaterThan(0);
      expect(events.at(-1)).toMatchObject({
        type: "finish",
        status: "ok",
        text: "Paris is 21°C and clear right now.",
        turns: 2,
        toolCalls: 1,
        runId: `stream-${dialect}`,
      });
      expect(tools.calls).toEqual([{ name: "get_weather", args: { city: "Paris" } }]);
    } finally {
      await agent.close();
    }
  });

  test("a content-filter finish ends the stream as a failed run", async () => {
    const gateway = await gatewayFor({ dialect, script: [{ text: "I can't help with", finishReason: "content_filter" }] });
    const agent = createAgent({ model: modelFor(dialect, gateway), tools: weatherTools() });
    try {
      const events = await collect(agent.stream("Something the filter stops"));
      expect(events.at(-1)).toMatchObject({
        type: "finish",
        status: "failed",
        error: { code: "E_RUN_FAILED", reason: "content-filter" },
        turns: 1,
      });
      expect(events.find((e) => e.type === "model-end")).toMatchObject({ finishReason: "content-filter" });
    } finally {
      await agent.close();
    }
  });

  test("the caller's signal cancels a response that stalls mid-stream", async () => {
    const gateway = await gatewayFor({ dialect, script: [{ fault: "stall" }] });
    const agent = createAgent({ model: modelFor(dialect, gateway), tools: weatherTools() });
    const controller = new AbortController();
    try {
      const events: AgentStreamEvent[] = [];
      for await (const e of agent.stream("Hang", { signal: controller.signal })) {
        events.push(e);
        if (e.type === "model-start") gateway.waitForRequests(1).then(() => controller.abort());
      }
      expect(events.at(-1)).toMatchObject({ type: "finish", status: "cancelled", error: { code: "E_ABORTED" } });
      expect(agent.runIds()).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
