/**
 * MCP tasks served by agentd (2025-11-25), proven with the official `@modelcontextprotocol/sdk` client's
 * `experimental.tasks` API against a real `agentd serve --http` and `--stdio` (capabilities.tasks on):
 * create, poll, result, list, cancel; every message agentd sends validates against the official schema.
 * With tasks off nothing of it is advertised and `params.task` is ignored.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { sharedMissing, validateOfficial } from "@agentd/test-support/oracle";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { call, initializeRequest, post, SseReader } from "@agentd/test-support/raw-mcp-http";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { validateTasksExtension } from "@agentd/test-support/tasks-extension-oracle";
import { McpClient } from "@agentd/sdk/mcp";
import { StdioChildTransport } from "@agentd/sdk/transport";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
const clients: Client[] = [];
let stdioPid: number | null = null;
let clientSide: { ws: CliWorkspace; gateway: FakeGateway } | undefined;
afterEach(async () => {
  await clientSide?.gateway.close();
  clientSide?.ws.cleanup();
  clientSide = undefined;
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  if (stdioPid !== null) {
    try {
      process.kill(stdioPid, "SIGKILL");
    } catch {
      // already gone
    }
    stdioPid = null;
  }
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

/** Two runs: the first answers when `first` opens, the second waits on `second` (it is cancelled). */
async function tasksWorld(tasks: boolean, serve: Record<string, unknown> = {}) {
  const first = gate();
  const second = gate();
  world = await serveWorld([
    async () => {
      await first.promise;
      return { text: "first answer" };
    },
    async () => {
      await second.promise;
      return { text: "second answer" };
    },
  ]);
  world.ws.writeConfig({ mcpServers: { rec: world.ws.recordingServer() }, capabilities: { tasks }, serve });
  return { world, first, second };
}

/** The official client, with every message agentd sends recorded next to the method it answers. */
async function connect(transport: StreamableHTTPClientTransport | StdioClientTransport) {
  const client = new Client({ name: "tasks-proof", version: "1.0.0" });
  clients.push(client);
  await client.connect(transport);
  const methods = new Map<unknown, string>();
  const received: { message: any; method?: string }[] = [];
  // Both transports take (message, options?) and call onmessage(message, extra?); the union's types do not say so.
  const t = transport as unknown as { send(m: unknown, o?: unknown): Promise<void>; onmessage?: (m: unknown, e?: unknown) => void };
  const send = t.send.bind(t);
  t.send = (message: any, options?: any) => {
    if (message.id !== undefined && message.method) methods.set(message.id, message.method);
    return send(message, options);
  };
  const inner = t.onmessage;
  t.onmessage = (message: any, extra?: any) => {
    received.push({ message, ...(message.id !== undefined && !message.method ? { method: methods.get(message.id) } : {}) });
    inner?.(message, extra);
  };
  return { client, received };
}

async function lifecycle(client: Client, first: { open(): void }, second: { open(): void }) {
  const caps = client.getServerCapabilities()!;
  expect(caps.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === "agent.run")?.execution?.taskSupport).toBe("optional");

  // create: the call returns at once with a working task; the run waits on the model.
  const created = await client.request(
    { method: "tools/call", params: { name: "agent.run", arguments: { instruction: "first" }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  const taskId = created.task.taskId;
  expect(created.task.status).toBe("working");
  expect(created.task.ttl).toBe(60_000);
  expect(created.task.pollInterval).toBeGreaterThan(0);
  expect(Buffer.from(taskId, "base64url").length).toBe(16);

  // poll and list while it works
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe("working");
  expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);

  // result blocks until terminal
  const pending = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  first.open();
  const result = await pending;
  expect(result.content[0]).toMatchObject({ type: "text", text: "first answer" });
  expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId });
  expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");

  // cancel a working task; a second cancel is -32602; the status stays cancelled
  const doomed = await client.request(
    { method: "tools/call", params: { name: "agent.run", arguments: { instruction: "second" }, task: {} } },
    CreateTaskResultSchema,
  );
  const cancelled = await client.experimental.tasks.cancelTask(doomed.task.taskId);
  expect(cancelled.status).toBe("cancelled");
  second.open();
  await expect(client.experimental.tasks.cancelTask(doomed.task.taskId)).rejects.toMatchObject({ code: -32602 });
  expect((await client.experimental.tasks.getTask(doomed.task.taskId)).status).toBe("cancelled");
  await expect(client.experimental.tasks.getTask("no-such-task")).rejects.toMatchObject({ code: -32602 });
  const listed = (await client.experimental.tasks.listTasks()).tasks;
  expect(listed.map((t) => [t.taskId, t.status])).toEqual([
    [taskId, "completed"],
    [doomed.task.taskId, "cancelled"],
  ]);
}

function expectAllValid(received: { message: any; method?: string }[]) {
  expect(received.length).toBeGreaterThan(5);
  for (const { message, method } of received) {
    const verdict = validateOfficial("2025-11-25", message, method);
    if (!verdict.ok) throw new Error(`${JSON.stringify(message)}: ${verdict.errors}`);
  }
}

describe("agentd serve with tasks on, driven by the official SDK's task client", () => {
  test("--http: create, poll, result, list, cancel", async () => {
    const { world, first, second } = await tasksWorld(true);
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const { client } = await connect(new StreamableHTTPClientTransport(serve.url));
    await lifecycle(client, first, second);
  }, 60_000);

  test.skipIf(sharedMissing)(
    "--stdio: the same, and every message agentd sends validates against the official 2025-11-25 schema",
    async () => {
      const { world, first, second } = await tasksWorld(true);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI_MAIN, "serve", "--stdio", "--config", world.config],
        env: { ...world.env, AGENT_LOG_FORMAT: "json" },
        cwd: world.ws.dir,
        stderr: "ignore",
      });
      const { client, received } = await connect(transport);
      stdioPid = transport.pid;
      await lifecycle(client, first, second);
      expect(received.some((r) => r.message.method === "notifications/tasks/status" && r.message.params.status === "cancelled")).toBe(true);
      expectAllValid(received);
    },
    60_000,
  );

  test("tasks off: not advertised, no taskSupport, params.task ignored (the call answers synchronously)", async () => {
    const { world, first } = await tasksWorld(false);
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const { client } = await connect(new StreamableHTTPClientTransport(serve.url));
    expect(client.getServerCapabilities()!.tasks).toBeUndefined();
    expect((await client.listTools()).tools.find((t) => t.name === "agent.run")?.execution).toBeUndefined();
    first.open();
    const answer = await client.request(
      { method: "tools/call", params: { name: "agent.run", arguments: { instruction: "first" }, task: {} } },
      CallToolResultSchema,
    );
    expect(answer.content[0]).toMatchObject({ type: "text", text: "first answer" });
    await expect(client.request({ method: "tasks/list", params: {} }, CreateTaskResultSchema)).rejects.toMatchObject({ code: -32601 });
  }, 60_000);
});

describe("agentd as a task client of agentd serve", () => {
  test("the run's deadline sends tasks/cancel: the served task ends cancelled", async () => {
    const { world, second } = await tasksWorld(true, { taskSupport: { "agent.run": "required" } });
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const ws = new CliWorkspace();
    const gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: req.tools.find((n) => /agent.run$/.test(n))!, arguments: { instruction: "never answered" } }] }),
      ],
    });
    clientSide = { ws, gateway };
    const config = ws.writeConfig({
      mcpServers: { peer: { url: serve.url.href } },
      capabilities: { tasks: true },
      limits: { deadline: "4s" },
    });
    const run = await ws.run(["run", "--config", config, "Delegate"], {
      env: { AGENT_INTELLIGENCE: gateway.url, AGENT_DIALECT: "openai", AGENT_MODEL: "test-model", AGENT_API_KEY: "sk-test" },
    });
    second.open();
    expect(run.code).toBe(3);
    const { client } = await connect(new StreamableHTTPClientTransport(serve.url));
    const { tasks } = await client.experimental.tasks.listTasks();
    expect(tasks.map((t) => t.status)).toEqual(["cancelled"]);
  }, 60_000);
});

describe("tasks are their principal's", () => {
  test("over HTTP with bearer tokens: bob neither lists, reads, awaits nor cancels alice's task", async () => {
    const { world, first } = await tasksWorld(true);
    const tokens = join(world.ws.dir, "tokens.txt");
    writeFileSync(tokens, "alice-token-0123456789abcdef\nbob-token-0123456789abcdef01\n");
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--auth-tokens", tokens, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const as = (token: string) =>
      new StreamableHTTPClientTransport(serve.url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const alice = (await connect(as("alice-token-0123456789abcdef"))).client;
    const bob = (await connect(as("bob-token-0123456789abcdef01"))).client;
    const created = await alice.request(
      { method: "tools/call", params: { name: "agent.run", arguments: { instruction: "alice only" }, task: {} } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect((await bob.experimental.tasks.listTasks()).tasks).toEqual([]);
    await expect(bob.experimental.tasks.getTask(taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
    await expect(bob.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([taskId]);
    first.open();
    const result = await alice.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.content[0]).toMatchObject({ type: "text", text: "first answer" });
  }, 60_000);
});

describe("tasks are a 2025-11-25 feature", () => {
  test("a 2025-06-18 session is not told of tasks, and its params.task is ignored", async () => {
    const { world, first } = await tasksWorld(true);
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], {
      env: world.env,
      cwd: world.ws.dir,
    });
    const res = await post(serve.url, initializeRequest(0, "2025-06-18"));
    const [init] = await new SseReader(res).until(0);
    const result = init!.message.result as Record<string, any>;
    expect(result.protocolVersion).toBe("2025-06-18");
    expect(result.capabilities.tools).toBeDefined();
    expect(result.capabilities.tasks).toBeUndefined();
    const headers = { "mcp-session-id": res.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" };
    expect((await post(serve.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
    const session = { sessionId: headers["mcp-session-id"], headers, initializeResult: result };
    first.open();
    const answer = await call(serve.url, session, 1, "tools/call", {
      name: "agent.run",
      arguments: { instruction: "old" },
      task: { ttl: 1000 },
    });
    expect(answer.response.result.task).toBeUndefined();
    expect(answer.response.result.content[0]).toMatchObject({ type: "text", text: "first answer" });
  }, 60_000);
});

describe("agentd serve with tasks on, 2026-07-28 clients (tasks extension)", () => {
  const EXT = { extensions: { "io.modelcontextprotocol/tasks": {} } };
  const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": EXT };
  const statelessPost = (url: URL, id: number, method: string, params: Record<string, unknown>, name?: string) =>
    post(
      url,
      { jsonrpc: "2.0", id, method, params: { _meta: meta, ...params } },
      {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(name === undefined ? {} : { "mcp-name": name }),
      },
    );
  /** The JSON-RPC answer of a stateless POST (its SSE stream, or a JSON refusal), each validated by its oracle. */
  async function answer(r: Response, method: string): Promise<any> {
    const body = r.headers.get("content-type")?.startsWith("application/json")
      ? await r.json()
      : (await new SseReader(r).nextMessage())!.message;
    const ext = body.result !== undefined && (method.startsWith("tasks/") || body.result.resultType === "task");
    const verdict = ext ? validateTasksExtension(body, method) : validateOfficial("2026-07-28", body, method);
    if (!verdict.ok) throw new Error(`${JSON.stringify(body)}: ${verdict.errors}`);
    return body;
  }

  test.skipIf(sharedMissing)(
    "--http, raw: agent.run becomes a task; Mcp-Name routes by task id; a listen pushes the result; all valid",
    async () => {
      const { world, first } = await tasksWorld(true);
      const serve = await startServe(["--http", "127.0.0.1:0", "--config", world.config, "--grace", "2s"], {
        env: world.env,
        cwd: world.ws.dir,
      });
      const discover = await answer(await statelessPost(serve.url, 1, "server/discover", {}), "server/discover");
      expect(discover.result.capabilities.extensions).toEqual(EXT.extensions);
      const created = await answer(
        await statelessPost(serve.url, 2, "tools/call", { name: "agent.run", arguments: { instruction: "first" } }, "agent.run"),
        "tools/call",
      );
      expect(created.result).toMatchObject({ resultType: "task", status: "working" });
      const taskId = created.result.taskId as string;
      const wrong = await statelessPost(serve.url, 3, "tasks/get", { taskId }, "another-task");
      expect(wrong.status).toBe(400);
      expect((await answer(wrong, "tasks/get")).error.code).toBe(-32020);
      expect((await answer(await statelessPost(serve.url, 4, "tasks/get", { taskId }, taskId), "tasks/get")).result).toMatchObject({
        resultType: "complete",
        status: "working",
      });
      // Follow it on a listen: acknowledged, the state at once, then the completion with the result inlined.
      const listen = new SseReader(await statelessPost(serve.url, 5, "subscriptions/listen", { notifications: { taskIds: [taskId] } }));
      const seen: any[] = [];
      const until = async (pred: (m: any) => boolean) => {
        for (;;) {
          const m = (await listen.nextMessage())!.message;
          seen.push(m);
          if (pred(m)) return m;
        }
      };
      expect((await until((m) => m.method === "notifications/subscriptions/acknowledged")).params.notifications).toEqual({
        taskIds: [taskId],
      });
      await until((m) => m.method === "notifications/tasks");
      first.open();
      const done = await until((m) => m.method === "notifications/tasks" && m.params.status === "completed");
      expect(done.params.result.content[0]).toMatchObject({ type: "text", text: "first answer" });
      for (const m of seen) {
        const v = m.method === "notifications/tasks" ? validateTasksExtension(m) : validateOfficial("2026-07-28", m);
        if (!v.ok) throw new Error(`${JSON.stringify(m)}: ${v.errors}`);
      }
      expect((await answer(await statelessPost(serve.url, 6, "tasks/get", { taskId }, taskId), "tasks/get")).result.status).toBe(
        "completed",
      );
    },
    60_000,
  );

  test("--stdio: agentd's own client (auto, tasks on) negotiates 2026-07-28 and gets agent.run's answer through a task", async () => {
    const { world, first } = await tasksWorld(true, { taskSupport: { "agent.run": "required" } });
    const transport = new StdioChildTransport({
      name: "self",
      command: process.execPath,
      args: [CLI_MAIN, "serve", "--stdio", "--config", world.config],
      env: world.env,
      cwd: world.ws.dir,
    });
    const client = new McpClient({ name: "agentd-client", version: "0" }, { versionNegotiation: "auto", capabilities: { tasks: true } });
    await client.connect(transport);
    stdioPid = transport.pid ?? null;
    try {
      expect(client.protocolVersion).toBe("2026-07-28");
      expect(client.serverCapabilities.extensions).toEqual(EXT.extensions);
      const answered = client.callTool("agent.run", { instruction: "first" });
      first.open();
      expect((await answered).content[0]).toMatchObject({ type: "text", text: "first answer" });
    } finally {
      await client.close();
    }
  }, 60_000);
});
