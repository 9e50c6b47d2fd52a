import { expect, test } from "bun:test";
import { RunRegistry } from "./run-registry.ts";
import { ServeMetrics } from "./serve-metrics.ts";

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

test("a run that stops to wait for a decision is counted once, when it ends — not as an outcome 'waiting'", () => {
  const registry = new RunRegistry();
  const metrics = new ServeMetrics(registry);
  registry.start("r1", "clean up", "alice", { via: "mcp" });
  registry.succeed("r1", { stopReason: "waiting", usage, turns: 1, toolCalls: 0 }, "alice");
  expect(registry.get("r1", "alice")?.status).toBe("waiting");
  expect(metrics.registry.render()).not.toContain('outcome="waiting"');
  expect(metrics.registry.render()).not.toMatch(/agentd_runs_total\{[^}]*outcome="succeeded"/);
  // Resumed in this process: the same record runs again and ends.
  registry.start("r1", "clean up", "alice", { via: "mcp" });
  registry.succeed("r1", { text: "done", stopReason: "final", usage, turns: 2, toolCalls: 1 }, "alice");
  const text = metrics.registry.render();
  expect(text).toMatch(/agentd_runs_total\{[^}]*outcome="succeeded"[^}]*\} 1\n/);
  expect(text).toMatch(/agentd_run_duration_seconds_count(\{[^}]*\})? 1\n/);
});
