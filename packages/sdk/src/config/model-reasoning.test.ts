import { describe, expect, test } from "bun:test";
import { parseConfig } from "./load.ts";

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return "(no error)";
};

describe("model thinking, prompt cache and split prices", () => {
  test("the settings parse as written", () => {
    const c = parseConfig(
      {
        model: {
          dialect: "anthropic",
          name: "claude-sonnet-4-5",
          thinking: { budgetTokens: 2048, effort: "high" },
          promptCache: { enabled: true, ttl: "1h" },
          prices: { inputPerMTokUsd: 3, outputPerMTokUsd: 15, cacheReadPerMTokUsd: 0.3, cacheWritePerMTokUsd: 6, reasoningPerMTokUsd: 15 },
        },
      },
      {},
    );
    expect(c.model?.thinking).toEqual({ budgetTokens: 2048, effort: "high" });
    expect(c.model?.promptCache).toEqual({ enabled: true, ttl: "1h" });
    expect(c.model?.prices?.cacheReadPerMTokUsd).toBe(0.3);
  });

  test("a mistake is one line naming the field", () => {
    expect(message(() => parseConfig({ model: { thinking: { effort: "huge" } } }, {}))).toContain("config.model.thinking.effort: one of");
    expect(message(() => parseConfig({ model: { promptCache: { ttl: "1d" } } }, {}))).toContain("config.model.promptCache.ttl");
    expect(message(() => parseConfig({ model: { thinking: { budget: 1 } } }, {}))).toContain("config.model.thinking.budget: unknown field");
    expect(
      message(() => parseConfig({ model: { prices: { inputPerMTokUsd: 1, outputPerMTokUsd: 1, cacheReadPerMTokUsd: -1 } } }, {})),
    ).toContain("config.model.prices.cacheReadPerMTokUsd");
  });
});

describe("the responses dialect", () => {
  test("model.dialect responses and previousResponseId parse, and reach the model factory", async () => {
    const { modelFromConfig } = await import("../agent/from-config/from-config.ts");
    const c = parseConfig(
      { model: { dialect: "responses", name: "gpt-5-mini", previousResponseId: true, thinking: { effort: "low" } } },
      {},
    );
    const asked: unknown[] = [];
    modelFromConfig(c, {
      createModel: (settings) => {
        asked.push(settings);
        return {
          provider: "spy",
          modelId: settings.model,
          supportsTools: true,
          generate: async () => {
            throw new Error("unused");
          },
          stream: () => {
            throw new Error("unused");
          },
        };
      },
    });
    expect(asked).toEqual([{ dialect: "responses", model: "gpt-5-mini", previousResponseId: true, thinking: { effort: "low" } }]);
    expect(message(() => parseConfig({ model: { dialect: "responses", previousResponseId: "yes" } }, {}))).toContain("previousResponseId");
  });
});
