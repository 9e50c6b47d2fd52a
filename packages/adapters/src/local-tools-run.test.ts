/**
 * Tools defined in code in a whole run: `createAgent({ tools: [tool(...)] })` over a fake gateway, with a
 * zod-typed tool. The scripted model calls it with invalid arguments (an error observation it reads, not a
 * crash), then with valid ones; the final answer uses the result. Scope, telemetry events and the run id
 * apply to it as to an MCP tool.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createAgent, tool, type RunEvent } from "@agentd/sdk";
import { z } from "zod";
import { echoLastToolResult } from "@agentd/testkit";
import { closeAll, gatewayFor, modelFor } from "./__fixtures__/run-support.ts";

afterEach(closeAll);

function weatherTool(seen: Array<{ city: string; runId: string }>) {
  return tool({
    name: "get_weather",
    description: "Current weather for a city",
    parameters: z.object({ city: z.string().min(2), unit: z.enum(["C", "F"]).default("C") }),
    outputSchema: z.object({ city: z.string(), temperature: z.number(), unit: z.string() }),
    execute: ({ city, unit }, { runId }) => {
      seen.push({ city, runId });
      return { city, temperature: unit === "C" ? 21 : 70, unit };
    },
  });
}

describe("a run with a tool defined in code", () => {
  for (const dialect of ["openai", "anthropic"] as const)
    test(`${dialect}: invalid arguments are an error observation, valid ones run execute, the answer uses the result`, async () => {
      const gateway = await gatewayFor({
        dialect,
        script: [
          { toolCalls: [{ name: "get_weather", arguments: { city: "P" } }] },
          { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
          echoLastToolResult((result) => `Answer from the tool: ${result}`),
        ],
      });
      const seen: Array<{ city: string; runId: string }> = [];
      const events: RunEvent[] = [];
      const agent = createAgent({ model: modelFor(dialect, gateway), tools: [weatherTool(seen)], onEvent: (e) => events.push(e) });
      try {
        const result = await agent.run("Weather in Paris?", { runId: "run-local-tool" });
        expect(gateway.requests.map((r) => r.tools)).toEqual([["get_weather"], ["get_weather"], ["get_weather"]]);
        expect(gateway.requests[1]?.lastToolResult).toContain('invalid arguments for "get_weather"');
        expect(gateway.requests[1]?.lastToolResult).toContain("city");
        expect(seen).toEqual([{ city: "Paris", runId: "run-local-tool" }]);
        expect(result.text).toContain('"temperature":21');
        expect(result.text).toStartWith("Answer from the tool:");
        const results = events.filter((e) => e.type === "tool-call-end");
        expect(results.map((e) => (e.type === "tool-call-end" ? [e.qualifiedName, e.isError] : []))).toEqual([
          ["get_weather", true],
          ["get_weather", false],
        ]);
        expect(events.filter((e) => e.type === "tool-call-start")).toHaveLength(2);
      } finally {
        await agent.close();
      }
    });

  test("scope: a local tool outside scope.allow is not offered and a call to it is refused", async () => {
    const gateway = await gatewayFor({
      dialect: "openai",
      script: [{ toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] }, echoLastToolResult()],
    });
    const seen: Array<{ city: string; runId: string }> = [];
    const agent = createAgent({
      model: modelFor("openai", gateway),
      tools: { get_weather: weatherTool(seen) },
      scope: { allow: ["fs/*"] },
    });
    try {
      const result = await agent.run("Weather in Paris?");
      expect(gateway.requests[0]?.tools).toEqual([]);
      expect(seen).toEqual([]);
      expect(result.text).toContain("outside its scope");
    } finally {
      await agent.close();
    }
  });
});

test("budgets: a local tool slower than limits.toolTimeoutMs has its signal aborted and is a tool error the model reads", async () => {
  const gateway = await gatewayFor({
    dialect: "responses",
    script: [{ toolCalls: [{ name: "slow", arguments: {} }] }, echoLastToolResult()],
  });
  let aborted: unknown;
  const slow = tool({
    name: "slow",
    description: "never finishes by itself",
    parameters: z.object({}),
    execute: (_input, { signal }) =>
      new Promise<string>((_resolve, reject) =>
        signal.addEventListener("abort", () => {
          aborted = signal.reason;
          reject(new Error("stopped"));
        }),
      ),
  });
  const agent = createAgent({ model: modelFor("responses", gateway), tools: [slow], limits: { toolTimeoutMs: 50 } });
  try {
    const result = await agent.run("Run the slow tool");
    expect(result.text).toContain("tool slow timed out after 50 ms");
    expect(String(aborted)).toContain("tool timeout");
  } finally {
    await agent.close();
  }
});
