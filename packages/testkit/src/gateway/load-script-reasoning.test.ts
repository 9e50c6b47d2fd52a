import { describe, expect, test } from "bun:test";
import { loadGatewayOptions } from "./load-script.ts";
import { turnProblem } from "./turns.ts";

describe("scripting reasoning and the cache model from JSON", () => {
  test("reasoning turns and the gateway's reasoning and cache options load", () => {
    const options = loadGatewayOptions(
      JSON.stringify({
        dialect: "openai",
        promptCache: { minTokens: 1024 },
        reasoningField: "reasoning",
        reasoningPassBack: "require",
        script: [{ reasoning: "think", redactedReasoning: true, text: "a", usage: { reasoning: 7 } }],
      }),
    );
    expect(options).toMatchObject({ promptCache: { minTokens: 1024 }, reasoningField: "reasoning", reasoningPassBack: "require" });
    expect(options.script?.[0]).toMatchObject({ reasoning: "think", redactedReasoning: true });
  });

  test("mistakes are one line naming the option or the turn field", () => {
    const load = (extra: Record<string, unknown>) => () => loadGatewayOptions(JSON.stringify({ dialect: "openai", script: [], ...extra }));
    expect(load({ reasoningPassBack: "sometimes" })).toThrow('reasoningPassBack must be "ignore", "forbid" or "require"');
    expect(load({ reasoningField: "thoughts" })).toThrow('reasoningField must be "reasoning_content" or "reasoning"');
    expect(load({ promptCache: { minTokens: -1 } })).toThrow("promptCache must be { minTokens?: integer >= 0 }");
    expect(turnProblem({ text: "a", reasoning: 5 })).toBe("reasoning must be a string");
    expect(turnProblem({ text: "a", redactedReasoning: "yes" })).toBe("redactedReasoning must be a boolean");
    expect(turnProblem({ text: "a", usage: { reasoning: 1.5 } })).toContain("reasoning?: integer >= 0");
  });
});
