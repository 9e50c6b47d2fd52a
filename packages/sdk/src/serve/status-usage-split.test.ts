import { expect, test } from "bun:test";
import { RunRegistry } from "./run-registry.ts";

test("agent://status sums the cache and reasoning split of finished and running runs", () => {
  const runs = new RunRegistry();
  runs.start("a", "one");
  runs.succeed("a", {
    stopReason: "final",
    turns: 1,
    toolCalls: 0,
    usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110, cacheReadTokens: 80, reasoningTokens: 4 },
  });
  runs.start("b", "two");
  runs.progress("b", { usage: { inputTokens: 50, outputTokens: 5, totalTokens: 55, cacheWriteTokens: 40 } });
  expect(runs.status().usage).toEqual({
    inputTokens: 150,
    outputTokens: 15,
    totalTokens: 165,
    cacheReadTokens: 80,
    cacheWriteTokens: 40,
    reasoningTokens: 4,
  });
});
