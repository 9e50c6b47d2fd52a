/**
 * The operator over A2A, end to end with real processes on 127.0.0.1:
 * - `agentd serve --http … --a2a` whose MCP server (server-everything, a child we did not write) elicits
 *   during a tool call under `capabilities.elicitation: "operator"`: the official `@a2a-js/sdk` client, as
 *   the operator, sends the task, sees `input-required` with the question and schema, answers on the same
 *   task; the tool receives the answer and the run finishes.
 * - `agentd serve --http` with prompts: the operator's reload of an edited file replaces them; an official MCP
 *   SDK client session sees `notifications/prompts/list_changed` and the new prompts/list.
 * - `agentd serve --http` with roots and server-everything (a child we did not write): the operator's reload
 *   of changed roots reaches server-everything, whose `get-roots-list` tool (called by the model in a run)
 *   then reports the new root.
 * - Two agentd processes: A (`agentd run`, a2aAgents: B) delegates to B (`agentd serve --a2a`); A's run id
 *   is in B's task metadata and log, B's task id in A's telemetry (a2a.status).
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { Client as McpSdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Role, TaskState, type Part } from "@a2a-js/sdk";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, events, REPO_ROOT } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { modelEnv, toolLike } from "./__fixtures__/scripts.ts";

setDefaultTimeout(90_000);

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace | undefined;
const gateways: FakeGateway[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  ws?.cleanup();
  ws = undefined;
});

const part = (content: Part["content"]): Part => ({ content, metadata: undefined, filename: "", mediaType: "" });
const send = (client: Client, parts: Part[], ids: { taskId?: string; contextId?: string } = {}) =>
  client.sendMessage({
    message: {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      parts,
      contextId: ids.contextId ?? "",
      taskId: ids.taskId ?? "",
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    tenant: "",
    configuration: undefined,
    metadata: undefined,
  });

test.skipIf(!Bun.file(EVERYTHING).size)(
  "a tool's elicitation reaches the operator as input-required; their answer reaches the tool and the run finishes",
  async () => {
    ws = new CliWorkspace();
    const gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) =>
          req.lastToolResult !== undefined
            ? { text: req.lastToolResult }
            : { toolCalls: [{ name: toolLike(req, "trigger-elicitation-request"), arguments: {} }] },
      ],
      onExhausted: "repeat-last",
    });
    gateways.push(gateway);
    const config = ws.writeConfig({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
      capabilities: { elicitation: "operator" },
    });
    const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a", "--operators", "local", "--config", config], {
      cwd: ws.dir,
      env: modelEnv(gateway),
    });
    const [listening] = await agentd.waitFor("serve.listening");
    const client = await new ClientFactory().createFromUrl(new URL(String(listening!.a2a)).origin);

    const asked = await send(client, [part({ $case: "text", value: "Sign me up" })]);
    if (!("status" in asked)) throw new Error("expected a task");
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [question, schema] = asked.status?.message?.parts ?? [];
    expect(question?.content).toEqual({ $case: "text", value: "Please provide inputs for the following fields:" });
    expect(schema?.content?.$case).toBe("data");
    expect((schema!.content as { value: { requestedSchema: { required: string[] } } }).value.requestedSchema.required).toEqual(["name"]);

    const done = await send(client, [part({ $case: "data", value: { name: "Grace Hopper", integer: 7 } })], {
      taskId: asked.id,
      contextId: asked.contextId,
    });
    if (!("status" in done)) throw new Error("expected a task");
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = done.artifacts[0]?.parts[0]?.content;
    expect(text?.$case).toBe("text");
    expect((text as { value: string }).value).toContain("- Name: Grace Hopper");
    expect((text as { value: string }).value).toContain("- Favorite Integer: 7");
    expect(agentd.named("a2a.operator", (e) => e.method === "answer")).toEqual([
      expect.objectContaining({ principal: "local", task: asked.id, action: "accept" }),
    ]);
    expect(agentd.stderr).not.toContain("Grace Hopper");
  },
);

test("two agentd processes: A delegates to B over A2A; each side sees the other's id", async () => {
  ws = new CliWorkspace();
  const gatewayB = await startFakeGateway({ dialect: "openai", script: [{ text: "B did the work" }], onExhausted: "repeat-last" });
  const gatewayA = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: toolLike(req, "a2a_b"), arguments: { message: "please do the work" } }] }),
      (req) => ({ text: `B answered: ${req.lastToolResult}` }),
    ],
  });
  gateways.push(gatewayA, gatewayB);
  const b = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a"], { cwd: ws.dir, env: modelEnv(gatewayB) });
  const [listening] = await b.waitFor("serve.listening");
  const bBase = new URL(String(listening!.a2a)).origin;
  const config = ws.writeConfig({ a2aAgents: { b: { url: bBase } } });
  const a = await ws.run(["run", "--json", "--run-id", "run-from-a", "--config", config, "Delegate to B"], { env: modelEnv(gatewayA) });
  expect(a.code).toBe(0);
  const envelope = JSON.parse(a.stdout);
  expect(envelope.runId).toBe("run-from-a");
  expect(envelope.text).toContain("B answered: ");
  expect(envelope.text).toContain("B did the work");

  // A's side: its telemetry names its run and B's task.
  const statuses = events(a).filter((e) => e.event === "a2a.status" && e.state === "completed");
  expect(statuses).toHaveLength(1);
  expect(statuses[0]).toMatchObject({ runId: "run-from-a", agent: "b" });
  const taskId = String(statuses[0]!.taskId);
  // B's side: its log and the task's metadata carry A's run id beside B's own.
  const [started] = await b.waitFor("a2a.task", 1, (e) => e.task === taskId);
  expect(started).toMatchObject({ principal: "local", callerRunId: "run-from-a" });
  const client = await new ClientFactory().createFromUrl(bBase);
  const task = await client.getTask({ id: taskId, historyLength: 0, tenant: "" });
  expect(task.metadata?.["agentd.dev/caller-run-id"]).toBe("run-from-a");
  expect(task.metadata?.["agentd.dev/run-id"]).toBe(started!.runId);
  expect(gatewayB.requests.at(-1)?.messages.find((m) => m.role === "user")?.text).toBe("please do the work");
});

test("agentd serve: an operator reloads the edited config file (the flags still apply), pauses and resumes its triggers, and drains it", async () => {
  ws = new CliWorkspace();
  const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "ok" }], onExhausted: "repeat-last" });
  gateways.push(gateway);
  const config = ws.writeConfig({ instructions: "Be brief.", triggers: { interval: { every: "1h", instruction: "tick" } } });
  const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a", "--operators", "local", "--config", config], {
    cwd: ws.dir,
    env: modelEnv(gateway),
  });
  const [listening] = await agentd.waitFor("serve.listening");
  const endpoint = String(listening!.a2a);
  const rpc = async (method: string, params: Record<string, unknown> = {}) =>
    (
      await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      })
    ).json() as Promise<any>;
  await agentd.waitFor("trigger.run-end");

  // --operators is applied over the re-read file again: `serve` has not changed, nothing needs a restart.
  ws.writeConfig({ instructions: "Be thorough.", limits: { maxTurns: 3 }, triggers: { interval: { every: "1h", instruction: "tick" } } });
  expect((await rpc("agentd/reload")).result).toEqual({ changed: ["instructions", "limits"], restartRequired: [] });
  ws.writeConfig({ instructions: 42 } as never);
  const refused = await rpc("agentd/reload");
  expect(refused.error.code).toBe(-32602);
  expect(refused.error.message).toContain("instructions");

  expect((await rpc("agentd/pause")).result).toEqual({ paused: ["interval"] });
  expect((await rpc("agentd/resume")).result).toEqual({ resumed: ["interval"] });
  await agentd.waitFor("trigger.run-end", 2);
  expect(gateway.requests.at(-1)?.messages.find((m) => m.role === "system")?.text).toContain("Be thorough.");

  expect((await rpc("agentd/drain", { wait: true })).result).toMatchObject({ state: "drained", inFlight: 0 });
  expect((await fetch(new URL("/readyz", endpoint))).status).toBe(503);
  expect(agentd.named("a2a.operator").map((e) => e.method)).toEqual(["agentd/reload", "agentd/pause", "agentd/resume", "agentd/drain"]);
  agentd.signal("SIGTERM");
  expect(await agentd.exited).toBe(143);
});

test("agentd serve: an operator's reload replaces the served prompts; an MCP session is told and lists the new ones", async () => {
  ws = new CliWorkspace();
  const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "ok" }], onExhausted: "repeat-last" });
  gateways.push(gateway);
  const config = ws.writeConfig({
    prompts: { greet: { description: "Greet someone", text: "Say hello to {{name}}", arguments: [{ name: "name", required: true }] } },
  });
  const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a", "--operators", "local", "--config", config], {
    cwd: ws.dir,
    env: modelEnv(gateway),
  });
  const [listening] = await agentd.waitFor("serve.listening");
  const mcp = new McpSdkClient({ name: "watcher", version: "1.0.0" });
  const changed = new Promise<void>((res) => mcp.setNotificationHandler(PromptListChangedNotificationSchema, () => res()));
  await mcp.connect(new StreamableHTTPClientTransport(new URL(String(listening!.url))));
  try {
    expect((await mcp.listPrompts()).prompts.map((p) => p.name)).toEqual(["greet"]);
    ws.writeConfig({
      prompts: { triage: { description: "Triage an issue", text: "Triage issue {{id}}", arguments: [{ name: "id", required: true }] } },
    });
    const rpc = await fetch(String(listening!.a2a), {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agentd/reload", params: {} }),
    });
    expect(((await rpc.json()) as { result: unknown }).result).toEqual({ changed: ["prompts"], restartRequired: [] });
    await changed;
    expect((await mcp.listPrompts()).prompts.map((p) => p.name)).toEqual(["triage"]);
    const ran = await mcp.callTool({ name: "agent.run", arguments: { prompt: "triage", arguments: { id: "9" } } });
    expect(ran.isError).not.toBe(true);
    expect(gateway.requests.at(-1)?.messages.find((m) => m.role === "user")?.text).toContain("Triage issue 9");
  } finally {
    await mcp.close().catch(() => {});
  }
  agentd.signal("SIGTERM");
  expect(await agentd.exited).toBe(143);
});

test.skipIf(!Bun.file(EVERYTHING).size)(
  "agentd serve: an operator's reload of changed roots reaches server-everything, whose roots tool then reports the new root",
  async () => {
    ws = new CliWorkspace();
    const alpha = join(ws.dir, "alpha");
    const beta = join(ws.dir, "beta");
    mkdirSync(alpha);
    mkdirSync(beta);
    // The model calls get-roots-list until the root the test waits for is in the answer (bounded by maxTurns),
    // then answers with what the tool said.
    let want = pathToFileURL(alpha).href;
    const gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) =>
          req.lastToolResult?.includes(want)
            ? { text: req.lastToolResult }
            : { toolCalls: [{ name: toolLike(req, "get-roots-list"), arguments: {} }] },
      ],
      onExhausted: "repeat-last",
    });
    gateways.push(gateway);
    const configOf = (root: string) => ({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
      capabilities: { roots: [root] },
      limits: { maxTurns: 8 },
    });
    const config = ws.writeConfig(configOf(alpha));
    const agentd = startAgentd(["serve", "--http", "127.0.0.1:0", "--a2a", "--operators", "local", "--config", config], {
      cwd: ws.dir,
      env: modelEnv(gateway),
    });
    const [listening] = await agentd.waitFor("serve.listening");
    const mcp = new McpSdkClient({ name: "runner", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(String(listening!.url))));
    const runText = async () =>
      JSON.stringify((await mcp.callTool({ name: "agent.run", arguments: { instruction: "list the roots" } })).content);
    try {
      const first = await runText();
      expect(first).toContain(pathToFileURL(alpha).href);

      ws.writeConfig(configOf(beta));
      want = pathToFileURL(beta).href;
      const rpc = await fetch(String(listening!.a2a), {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "agentd/reload", params: {} }),
      });
      expect(((await rpc.json()) as { result: unknown }).result).toEqual({ changed: ["roots"], restartRequired: [] });
      const second = await runText();
      expect(second).toContain(pathToFileURL(beta).href);
      expect(second).not.toContain(pathToFileURL(alpha).href);
    } finally {
      await mcp.close().catch(() => {});
    }
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
  },
);
