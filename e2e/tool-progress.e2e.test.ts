/**
 * End to end: a long MCP tool stays alive while it reports progress. The real `agentd run` (and `agentd mcp
 * call`) → an MCP server built on the official SDK that reports progress only when a request carries a
 * progressToken → the testkit gateway over loopback HTTP. With `timeout: 1s`, a 3 s tool that reports every
 * 300 ms returns its result; one that is silent for 3 s times out; `maxTotalTimeout` ends it regardless.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";

const PROGRESS_SERVER = resolve(import.meta.dir, "__fixtures__/progress-server.ts");
let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => {});
  client = undefined;
  await stopAllServe();
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
  ws = undefined;
});

const server = (timeouts: Record<string, string>) => ({ slow: { command: process.execPath, args: [PROGRESS_SERVER], ...timeouts } });
const modelEnv = (g: FakeGateway) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: "openai",
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "k",
});

/** A run whose model calls `slow/work` once with `args`, then answers with what the tool said. */
async function runWork(timeouts: Record<string, string>, args: Record<string, number>) {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.endsWith("work")) ?? "missing", arguments: args }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  const config = ws.writeConfig({ mcpServers: server(timeouts) });
  return await ws.run(["run", "--config", config, "Do the long work"], { env: modelEnv(gateway) });
}

describe("a long tool that reports progress", () => {
  test("outlives a 1s timeout: each progress restarts it, the run gets the result, progress is in telemetry", async () => {
    const run = await runWork({ timeout: "1s", maxTotalTimeout: "30s" }, { seconds: 3, everyMs: 300 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("work done after 3s (progress reported)");
    const progress = events(run).filter((e) => e.event === "tool.call.progress");
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ qualifiedName: "slow/work", total: 10 });
    expect(progress[0]!.message).toMatch(/^step \d+ of 10$/);
    // Ten notifications in three seconds become at most one event a second (plus the first).
    expect(progress.length).toBeLessThan(10);
  }, 20_000);

  test("a tool silent for longer than the timeout is cut off there, and the model is told", async () => {
    const run = await runWork({ timeout: "1s" }, { seconds: 3, everyMs: 3000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("tools/call timed out after 1000ms without a response");
    expect(events(run).filter((e) => e.event === "tool.call.progress")).toEqual([]);
  }, 20_000);

  test("progress never extends a request past maxTotalTimeout", async () => {
    const run = await runWork({ timeout: "1s", maxTotalTimeout: "2s" }, { seconds: 4, everyMs: 300 });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("tools/call exceeded its maximum total time of 2000ms");
  }, 20_000);

  test("limits.mcpTimeout sets every server's timeout; agentd mcp call asks for progress too", async () => {
    ws = new CliWorkspace();
    const config = ws.writeConfig({ limits: { mcpTimeout: "1s" }, mcpServers: server({}) });
    const silent = await ws.run(["mcp", "slow", "call", "work", "--arg", "seconds=3", "--arg", "everyMs=3000", "--config", config]);
    expect(silent.code).not.toBe(0);
    expect(silent.stderr).toContain("timed out after 1000ms");
    const reporting = await ws.run(["mcp", "slow", "call", "work", "--arg", "seconds=3", "--arg", "everyMs=300", "--config", config]);
    expect(reporting.code).toBe(0);
    expect(reporting.stdout).toContain("work done after 3s (progress reported)");
    expect(reporting.stderr).toContain("progress 1/10 step 1 of 10");
  }, 30_000);
});

test("agentd serve: agent://runs/{id} shows the running run's tool and its progress while the tool works", async () => {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.endsWith("work")) ?? "missing", arguments: { seconds: 3, everyMs: 300 } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  const config = ws.writeConfig({ mcpServers: server({ timeout: "1s" }) });
  const serve = await startServe(["--http", "127.0.0.1:0", "--config", config, "--grace", "2s"], { env: modelEnv(gateway), cwd: ws.dir });
  client = new Client({ name: "progress-watcher", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serve.url));
  const running = client.callTool({ name: "agent.run", arguments: { instruction: "Do the long work", runId: "long-1" } }, undefined, {
    timeout: 20_000,
  });
  const progressed = await serve.waitForEvent((e) => e.event === "tool.call.progress");
  const content = (await client.readResource({ uri: "agent://runs/long-1" })).contents[0]!;
  const run = JSON.parse("text" in content ? content.text : "{}");
  expect(run.status).toBe("running");
  expect(run.tool).toMatchObject({ name: "slow/work", total: 10 });
  expect(run.tool.progress).toBeGreaterThanOrEqual(progressed.progress);
  const result = await running;
  expect(JSON.stringify(result.content)).toContain("work done after 3s (progress reported)");
  const after = (await client.readResource({ uri: "agent://runs/long-1" })).contents[0]!;
  expect(JSON.parse("text" in after ? after.text : "{}").tool).toBeUndefined();
}, 30_000);
