/**
 * Shutdown and idempotency end to end: SIGTERM during a slow tool (finished within the grace, or cancelled
 * with `notifications/cancelled` after it) with no process left behind; the model request aborted; the
 * `once` mode's "already done" path; and `agentd serve` running configured triggers, reported in
 * `agent://status`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { writeFileSync } from "node:fs";
import { McpClient, StreamableHttpClientTransport } from "@agentd/sdk";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll, type AgentdProcess } from "./__fixtures__/agentd-process.ts";
import { isAlive } from "./__fixtures__/proc-tree.ts";
import { instructionOf, modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");
let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  await stopAll();
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
  client = undefined;
  gateway = undefined;
  fake = undefined;
  ws = undefined;
});

/** An interval agentd whose run calls the recording server's `slow` tool for `ms`. */
async function slowRun(ms: number, extraArgs: string[] = []) {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) =>
        req.lastToolResult !== undefined
          ? { text: `slow said ${req.lastToolResult.includes("done") ? "done" : "?"}` }
          : { toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms } }] },
    ],
  });
  const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
  const agentd = startAgentd(["run", "--config", config, "--interval", "1h", ...extraArgs, "be slow"], {
    cwd: ws.dir,
    env: modelEnv(gateway),
  });
  await agentd.waitFor("tool.call");
  return { agentd, ws };
}

/** SIGTERM with the process tree collected first; resolves once agentd exited, with what was alive before. */
async function terminate(agentd: AgentdProcess): Promise<{ code: number; before: number[] }> {
  const before = agentd.descendants();
  expect(before.length).toBeGreaterThan(0); // at least the MCP server child
  agentd.signal("SIGTERM");
  const code = await agentd.exited;
  return { code, before };
}

describe("SIGTERM during a run with a slow tool", () => {
  test("the run finishes within the grace period; nothing is cancelled; exit 143; no process left", async () => {
    const { agentd, ws } = await slowRun(3000);
    const { code, before } = await terminate(agentd);
    expect(code).toBe(143);
    expect(agentd.named("shutdown.draining")[0]).toMatchObject({ signal: "SIGTERM", inFlight: 1 });
    expect(agentd.named("trigger.run-end")[0]).toMatchObject({ status: "ok", trigger: "interval" });
    expect(agentd.stdout).toBe("slow said done\n");
    expect(ws.received().some((m) => m.method === "notifications/cancelled")).toBe(false);
    expect(before.filter(isAlive)).toEqual([]);
  }, 60_000);

  test("past the grace period the run is cancelled: the server sees notifications/cancelled; exit 143; no process left", async () => {
    const { agentd, ws } = await slowRun(120_000, ["--grace", "300ms"]);
    const { code, before } = await terminate(agentd);
    expect(code).toBe(143);
    expect(agentd.named("trigger.run-end")[0]).toMatchObject({ status: "aborted", code: "E_ABORTED" });
    const received = ws.received();
    const call = received.find((m) => m.method === "tools/call");
    expect(received.find((m) => m.method === "notifications/cancelled")?.params?.requestId).toBe(call?.id);
    expect(received.some((m) => m.event === "handler-aborted")).toBe(true);
    expect(agentd.stdout).toBe("");
    expect(before.filter(isAlive)).toEqual([]);
  }, 60_000);

  test("a model request in flight past the grace period is aborted", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ fault: "stall" }] });
    const agentd = startAgentd(["run", "--interval", "1h", "--grace", "200ms", "think hard"], { cwd: ws.dir, env: modelEnv(gateway) });
    await agentd.waitFor("model.request");
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect(agentd.named("trigger.run-end")[0]).toMatchObject({ status: "aborted" });
  }, 60_000);

  test("--mode once: the run finishes within the grace and its result is printed; the exit code is still 143", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [(req) => ({ toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms: 3000 } }] }), { text: "finished anyway" }],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const agentd = startAgentd(["run", "--config", config, "be slow once"], { cwd: ws.dir, env: modelEnv(gateway) });
    await agentd.waitFor("tool.call");
    const { code, before } = await terminate(agentd);
    expect(code).toBe(143);
    expect(agentd.stdout).toBe("finished anyway\n");
    expect(before.filter(isAlive)).toEqual([]);
  }, 60_000);

  test("--mode once, SIGINT: one line at once says the step is finishing and how to stop now; --json names the interrupt", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [(req) => ({ toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms: 6000 } }] }), { text: "finished anyway" }],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const agentd = startAgentd(["run", "--config", config, "--json", "be slow once"], { cwd: ws.dir, env: modelEnv(gateway) });
    await agentd.waitFor("tool.call");
    agentd.signal("SIGINT");
    // The line comes while the tool is still running: before the tool's result and the run's end.
    const [draining] = await agentd.waitFor("shutdown.draining");
    expect(draining).toMatchObject({ level: "warn", signal: "SIGINT", inFlight: 1 });
    expect(draining?.hint).toBe("finishing the current step (up to 30s) — press Ctrl-C again to stop now");
    expect(await agentd.exited).toBe(130);
    // Said while the tool was still running: the line stands before the tool's result.
    const order = agentd.events.map((e) => e.event);
    expect(order.indexOf("shutdown.draining")).toBeLessThan(order.indexOf("tool.result"));
    const envelope = JSON.parse(agentd.stdout);
    expect(envelope).toMatchObject({ status: "ok", text: "finished anyway", interrupted: "SIGINT", exitCode: 130 });
  }, 60_000);
});

describe("already done", () => {
  test("--mode once: a final answer of ALREADY_DONE exits 0 with nothing on stdout (--json: status already-done); the run id reached the tool", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req) =>
          req.lastToolResult !== undefined
            ? { text: "ALREADY_DONE" }
            : { toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "is run-7 done?" } }] },
      ],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const plain = await ws.run(["run", "--config", config, "Send the invoice unless already done"], {
      env: { ...modelEnv(gateway), RUN_ID: "run-7" },
    });
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe("");
    expect(ws.received().find((m) => m.method === "tools/call")?.params?._meta?.["agentd.dev/run-id"]).toBe("run-7");
    const json = await ws.run(["run", "--config", config, "--json", "--run-id", "run-8", "Send it"], { env: modelEnv(gateway) });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ runId: "run-8", status: "already-done" });
  }, 60_000);
});

describe("agentd serve runs the configured triggers", () => {
  test("agent://status lists each trigger: active, or unavailable with the reason; triggered runs are recorded", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [(req) => ({ text: `ok ${instructionOf(req)}` })],
    });
    fake = fakeServerCommand({ resources: [{ uri: "file:///inbox.md", text: "mail 1" }] });
    const state = join(ws.dir, "state.txt");
    writeFileSync(state, "flat");
    const config = ws.writeConfig({
      mcpServers: { inbox: fake.config, flat: { command: process.execPath, args: [FILE_SERVER, state] } },
      triggers: {
        subscriptions: [
          { server: "inbox", uri: "file:///inbox.md", instruction: "Triage: {{resource.text}}" },
          { server: "flat", uri: "file-watch://state", instruction: "never" },
        ],
        interval: { every: "1h", instruction: "hourly check" },
      },
    });
    const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--config", config], { cwd: ws.dir, env: modelEnv(gateway) });
    const [listening] = await agentd.waitFor("serve.listening");
    await agentd.waitFor("triggers.started");
    const unavailable = await agentd.waitFor("trigger.unavailable");
    expect(unavailable).toHaveLength(1);
    expect(unavailable[0]).toMatchObject({ trigger: "sub:flat:file-watch://state", server: "flat" });
    const ends = await agentd.waitFor("trigger.run-end", 2);
    client = new McpClient({ name: "modes-test", version: "1.0.0" });
    await client.connect(new StreamableHttpClientTransport(listening?.url));
    const read = await client.readResource("agent://status");
    const status = JSON.parse(String((read.contents[0] as { text: string }).text));
    const byId = Object.fromEntries((status.triggers as Array<Record<string, any>>).map((t) => [t.id, t]));
    expect(byId["sub:inbox:file:///inbox.md"]).toMatchObject({
      kind: "subscription",
      state: "active",
      server: "inbox",
      runs: 1,
      lastOutcome: "ok",
    });
    expect(byId["sub:flat:file-watch://state"]).toMatchObject({ state: "unavailable", server: "flat" });
    expect(byId["sub:flat:file-watch://state"].reason).toContain("does not support resource subscriptions");
    expect(byId.interval).toMatchObject({ kind: "interval", state: "active", everyMs: 3_600_000, runs: 1 });
    expect(status.runsSucceeded).toBe(2);
    const run = await client.readResource(`agent://runs/${ends[0]?.runId}`);
    expect(JSON.parse(String((run.contents[0] as { text: string }).text))).toMatchObject({ status: "succeeded" });
    await client.close();
    client = undefined;
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect(agentd.stdout).toBe("");
  }, 60_000);
});
