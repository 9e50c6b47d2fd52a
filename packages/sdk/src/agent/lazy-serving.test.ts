/**
 * A run of an agent that never serves loads none of serving's modules (the served agent, A2A, the console,
 * the run history): a one-shot run pays for code it uses only. Checked in a child process, which starts
 * with nothing loaded; the first `serve()` then loads them.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { scriptedModel } from "../loop/__fixtures__/scripted-model.ts";
import { createAgent } from "./create-agent.ts";

test("createAgent + run loads no serving module; the first serve() loads them", async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "run-then-serve.ts")], {
    stdout: "pipe",
    stderr: "pipe",
    env: process.env,
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  const report = JSON.parse(out) as { text: string; afterRun: string[]; afterServe: string[] };
  expect(report.text).toBe("done");
  expect(report.afterRun).toEqual([]);
  expect(report.afterServe).toEqual(
    expect.arrayContaining([
      "agent/serving/agent-serving.ts",
      "agent/serving/served-agent.ts",
      "a2a/server/index.ts",
      "serve/served-mcp.ts",
    ]),
  );
});

test("a close() while serve() loads serving's modules: serve() rejects, and no endpoint outlives the agent", async () => {
  const agent = createAgent({ model: scriptedModel([]) });
  const serving = agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
  await agent.close();
  await expect(serving).rejects.toThrow("the agent is shutting down");
  expect(agent.status().serving).toBe(0);
});
