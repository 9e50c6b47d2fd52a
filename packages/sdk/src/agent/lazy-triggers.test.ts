/**
 * An agent without triggers, subagents, durability or approvals loads none of the trigger runner, the cron
 * engine, the supervisor, the store's client, run claims or the approval desk: a one-shot run (`agentd demo`)
 * pays for code it uses only. An agent with them builds them at once, as before (createAgentFromConfig is
 * synchronous, `agent.triggers` and `agent.supervisor` are there at once).
 * Checked in a child process, which starts with nothing loaded.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("a run of an agent without triggers, subagents, durability or approvals loads none of their modules; configuring them loads them", async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "run-without-triggers.ts")], {
    stdout: "pipe",
    stderr: "pipe",
    env: process.env,
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const report = JSON.parse(out) as { text: string; afterRun: string[]; afterReactive: string[]; triggers: string[]; subagents: boolean };
  expect(report.text).toBe("done");
  expect(report.afterRun).toEqual([]);
  expect(report.afterReactive).toEqual(
    expect.arrayContaining([
      "triggers/runner/agent-triggers.ts",
      "triggers/runner/trigger-specs.ts",
      "triggers/cron-schedule.ts",
      "supervisor/supervisor.ts",
      "supervisor/self-tools.ts",
      "agent/from-config/served-runs-from-config.ts",
      "agent/from-config/claims-from-config.ts",
      "agent/from-config/run-history-store.ts",
      "serve/approvals/stored-desk.ts",
      "agent/checkpoint/agent-checkpoint.ts",
    ]),
  );
  expect(report.afterReactive.some((m) => m.startsWith("croner/"))).toBe(true);
  expect(report.triggers).toHaveLength(2);
  expect(report.subagents).toBe(true);
});
