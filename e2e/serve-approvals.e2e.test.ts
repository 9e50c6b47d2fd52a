/**
 * Served runs' tool calls that wait for a person, end to end: the real `agentd serve --http` with user and
 * operator tokens, the fake gateway's model calling `fs/delete_file` of the testkit's fake MCP server (its
 * record file is the server's own account of what reached it), an approval rule asking for it. A user's
 * `agent.run` waits; the question is listed at `agent://approvals` (to the operator and the run's own user,
 * not to another user); only the operator may decide it; approved, the server is called with the approved
 * arguments and the caller gets the tool's answer; denied, the server never sees the call.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { call, openSession, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { Role, TaskState, type Part } from "@a2a-js/sdk";
import { Client as McpSdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";
const OPS = "ops-token-0123456789abcdef";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let redis: RunningRedis | undefined;
afterEach(async () => {
  await stopAllServe();
  await redis?.stop();
  redis = undefined;
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
  ws = gateway = fake = undefined;
}, 30_000);

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const serverCalls = () => (fake?.recordedRequests() ?? []).filter((r) => r.method === "tools/call");
const text = (r: Record<string, any>) => r.result?.content?.[0]?.text as string;

/** A workspace whose model deletes one path (the rule asks), and the environment pointing agentd at its gateway. */
async function world(approvals: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const here = new CliWorkspace();
  ws = here;
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  here.writeConfig({ mcpServers: { fs: fake.config }, approvals, ...extra });
  return {
    AGENT_INTELLIGENCE: gateway.url,
    AGENT_DIALECT: "openai",
    AGENT_MODEL: "m",
    AGENT_API_KEY: "k",
    XDG_STATE_HOME: join(here.dir, "state"),
  };
}

const ASK = { rules: [{ tool: "fs/delete_*", decision: "ask" }] };

/** `agentd serve --http` over that workspace, with alice, bob and an operator. */
async function servedWorld(approvals: Record<string, unknown> = ASK, extra: Record<string, unknown> = {}) {
  const env = await world(approvals, extra);
  const dir = ws!.dir;
  const users = join(dir, "tokens.txt");
  const ops = join(dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  const serve = await startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
    env,
    cwd: dir,
  });
  return { serve, env, dir, opsFile: ops };
}

/** Alice's agent.run, started (its answer comes once the question is decided), and the question's id. */
async function aliceAsks(serve: ServeProcess) {
  const alice = await openSession(serve.url, bearer(ALICE));
  const answer = call(serve.url, alice, 1, "tools/call", { name: "agent.run", arguments: { instruction: "clean up", runId: "job-1" } });
  const asked = await serve.waitForEvent((e) => e.event === "approval.requested");
  return { alice, answer, id: asked.requestId as string };
}

const read = async (url: URL, s: RawSession, id: number, uri: string) => (await call(url, s, id, "resources/read", { uri })).response;
const listed = async (url: URL, s: RawSession, id: number) =>
  JSON.parse((await read(url, s, id, "agent://approvals")).result.contents[0].text).approvals;
const decide = (url: URL, s: RawSession, id: number, args: Record<string, unknown>) =>
  call(url, s, id, "tools/call", { name: "agent.decide", arguments: args }).then((r) => r.response);

describe("agentd serve: a served run's call waits for the operator", () => {
  test("listed to the operator and its user only; decided by the operator only; approved, the tool is called and the caller answered", async () => {
    const { serve, opsFile, dir } = await servedWorld();
    const { alice, answer, id } = await aliceAsks(serve);
    const bob = await openSession(serve.url, bearer(BOB));
    const aliceFile = join(dir, "alice.txt");
    const bobFile = join(dir, "bob.txt");
    writeFileSync(aliceFile, `${ALICE}\n`);
    writeFileSync(bobFile, `${BOB}\n`);
    const cli = (args: string[], tokenFile: string) => ws!.run(["approvals", ...args, "--url", serve.url.href, "--token-file", tokenFile]);

    // The operator's `agentd approvals list`: the question, pending, with the call and whose run it is.
    const listedByOps = await cli(["list"], opsFile);
    expect(listedByOps.code).toBe(0);
    expect(listedByOps.stdout).toContain(`${id}  pending  fs/delete_file {"path":"/srv/old"}`);
    const asJson = JSON.parse((await cli(["list", "--json"], opsFile)).stdout);
    expect(asJson).toHaveLength(1);
    expect(asJson[0]).toMatchObject({
      state: "pending",
      origin: "mcp",
      request: { id, name: "fs/delete_file", arguments: { path: "/srv/old" } },
    });
    // The run's own user sees it (over MCP); another user neither sees nor decides it.
    expect((await listed(serve.url, alice, 3)).map((a: any) => a.request.id)).toEqual([id]);
    expect(await listed(serve.url, bob, 4)).toEqual([]);
    expect((await cli(["list"], bobFile)).stdout).toBe("no questions waiting for approval\n");
    const byBob = await cli(["approve", id], bobFile);
    expect(byBob.code).toBe(2);
    expect(byBob.stderr).toContain(`no approval ${id}`);
    const byAlice = await decide(serve.url, alice, 6, { approvalId: id, decision: "approve" });
    expect(byAlice.result.isError).toBe(true);
    expect(text(byAlice)).toContain("decided by an operator");
    expect((await cli(["approve", id], aliceFile)).stderr).toContain("decided by an operator");
    expect(serverCalls()).toEqual([]);

    const byOps = await cli(["approve", id, "--reason", "expected cleanup"], opsFile);
    expect(byOps.code).toBe(0);
    expect(byOps.stdout).toBe(`${id}: approve by bearer:operator#0\n`);
    const done = (await answer).response;
    expect(text(done)).toContain("tool said: <tool-output");
    expect(text(done)).toContain("deleted /srv/old");
    expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
    const again = await cli(["deny", id], opsFile);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already decided: approve by bearer:operator#0");
    expect((await cli(["approve", "apr-no-such-question"], opsFile)).stderr).toContain("no approval apr-no-such-question");
    const decided = await serve.waitForEvent((e) => e.event === "approval.decided");
    expect(decided).toMatchObject({ decision: "approve", by: "bearer:operator#0", reason: "expected cleanup" });
    // The run's history records the question and its decision: who, when, what, why, the request id and digest.
    const record = JSON.parse((await read(serve.url, alice, 9, "agent://runs/job-1")).result.contents[0].text);
    expect(record.approvals).toEqual([
      expect.objectContaining({
        requestId: id,
        tool: "fs/delete_file",
        digest: asJson[0].request.digest,
        decision: "approve",
        by: "bearer:operator#0",
        reason: "expected cleanup",
        decidedAt: expect.any(String),
        requestedAt: expect.any(String),
      }),
    ]);
  }, 90_000);

  test("denied: the server never sees the call, and the model reads the operator's reason", async () => {
    const { serve } = await servedWorld();
    const { answer, id } = await aliceAsks(serve);
    const ops = await openSession(serve.url, bearer(OPS));
    const denied = await decide(serve.url, ops, 2, { approvalId: id, decision: "deny", reason: "not on a Sunday" });
    expect(denied.result.structuredContent.approval.decision).toMatchObject({ decision: "deny", by: "bearer:operator#0" });
    const done = (await answer).response;
    expect(text(done)).toContain("denied");
    expect(text(done)).toContain("not on a Sunday");
    expect(serverCalls()).toEqual([]);
  }, 90_000);

  test("nobody answers: approvals.timeout decides by approvals.onTimeout, recorded as the timeout's", async () => {
    const { serve } = await servedWorld({ rules: [{ tool: "fs/delete_*", decision: "ask" }], timeout: "1s", onTimeout: "deny" });
    const { answer, id } = await aliceAsks(serve);
    const done = (await answer).response;
    expect(text(done)).toContain("decided by timeout");
    expect(serverCalls()).toEqual([]);
    const ops = await openSession(serve.url, bearer(OPS));
    const [question] = await listed(serve.url, ops, 2);
    expect(question).toMatchObject({ request: { id }, state: "decided", decision: { decision: "deny", by: "timeout" } });
  }, 90_000);
});

const part = (content: Part["content"]): Part => ({ content, metadata: undefined, filename: "", mediaType: "" });
const sendA2a = (client: Client, parts: Part[], ids: { taskId?: string; contextId?: string } = {}) =>
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

/** `agentd serve --http --a2a` (no tokens: the local principal, an operator only with `--operators local`) and the official A2A client. */
async function a2aWorld(operator: boolean) {
  const env = await world(ASK);
  const serve = await startServe(["--http", "127.0.0.1:0", "--a2a", "--grace", "1s", ...(operator ? ["--operators", "local"] : [])], {
    env,
    cwd: ws!.dir,
  });
  const listening = serve.events().find((e) => e.event === "serve.listening")!;
  const client = await new ClientFactory().createFromUrl(new URL(String(listening.a2a)).origin);
  const asked = await sendA2a(client, [part({ $case: "text", value: "clean up" })]);
  if (!("status" in asked)) throw new Error("expected a task");
  return { serve, client, asked };
}

describe("agentd serve --a2a: a task whose run waits for approval", () => {
  test("goes input-required with the question; the operator's reply with a decision data part decides it; the tool is called", async () => {
    const { client, asked } = await a2aWorld(true);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const [words, data] = asked.status?.message?.parts ?? [];
    expect((words!.content as { value: string }).value).toContain("The call to delete_file on MCP server 'fs' waits for approval");
    const question = (data!.content as { value: Record<string, unknown> }).value;
    expect(question).toMatchObject({ kind: "agentd.dev/approval", name: "fs/delete_file", arguments: { path: "/srv/old" } });
    expect(serverCalls()).toEqual([]);

    const done = await sendA2a(client, [part({ $case: "data", value: { decision: "approve", reason: "looks right" } })], {
      taskId: asked.id,
      contextId: asked.contextId,
    });
    if (!("status" in done)) throw new Error("expected a task");
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(done.artifacts[0]?.parts[0]?.content)).toContain("deleted /srv/old");
    expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
  }, 90_000);

  test("a sender who is not an operator cannot decide it; the server never sees the call", async () => {
    const { client, asked } = await a2aWorld(false);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const refused = await sendA2a(client, [part({ $case: "data", value: { decision: "approve" } })], {
      taskId: asked.id,
      contextId: asked.contextId,
    }).catch((e: Error) => e);
    expect(String(refused)).toContain("decided by an operator");
    expect(serverCalls()).toEqual([]);
  }, 90_000);
});

describe("approvals.askCaller: a served MCP caller that declared elicitation is asked itself", () => {
  test("the official MCP SDK client's elicitation handler approves its own run's call; the tool is called; recorded as the caller's", async () => {
    const { serve } = await servedWorld({ ...ASK, askCaller: true });
    const client = new McpSdkClient({ name: "alice", version: "1" }, { capabilities: { elicitation: {} } });
    const asked: Array<{ message: string; schema: unknown }> = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const params = req.params as { message: string; requestedSchema?: unknown };
      asked.push({ message: params.message, schema: params.requestedSchema });
      return { action: "accept", content: { decision: "approve", reason: "my own cleanup" } };
    });
    await client.connect(new StreamableHTTPClientTransport(serve.url, { requestInit: { headers: bearer(ALICE) } }));
    try {
      const result = await client.callTool({ name: "agent.run", arguments: { instruction: "clean up", runId: "job-2" } });
      expect(JSON.stringify(result.content)).toContain("deleted /srv/old");
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toContain("Approve the call to delete_file on fs");
      expect(asked[0]!.schema).toMatchObject({ properties: { decision: { enum: ["approve", "deny"] } } });
      expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
      const decided = await serve.waitForEvent((e) => e.event === "approval.decided");
      expect(decided).toMatchObject({ decision: "approve", by: "bearer:bearer#0", reason: "my own cleanup" });
    } finally {
      await client.close();
    }
  }, 90_000);
});

describe("agent://approvals is subscribable", () => {
  test("an operator's subscription hears the question posted and decided (notifications/resources/updated)", async () => {
    const { serve } = await servedWorld();
    const ops = new McpSdkClient({ name: "ops", version: "1" });
    const updates: string[] = [];
    const waiters = new Set<() => void>();
    ops.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
      for (const w of [...waiters]) w();
    });
    const updatesReach = (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (updates.filter((u) => u === "agent://approvals").length < count) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    await ops.connect(new StreamableHTTPClientTransport(serve.url, { requestInit: { headers: bearer(OPS) } }));
    try {
      await ops.subscribeResource({ uri: "agent://approvals" });
      const { answer, id } = await aliceAsks(serve);
      await updatesReach(1);
      const listedNow = JSON.parse(((await ops.readResource({ uri: "agent://approvals" })).contents[0] as { text: string }).text);
      expect(listedNow.approvals.map((a: any) => a.request.id)).toEqual([id]);
      const one = JSON.parse(((await ops.readResource({ uri: `agent://approvals/${id}` })).contents[0] as { text: string }).text);
      expect(one).toMatchObject({ state: "pending", request: { id } });
      await ops.callTool({ name: "agent.decide", arguments: { approvalId: id, decision: "deny" } });
      await updatesReach(2);
      expect(text((await answer).response)).toContain("denied");
    } finally {
      await ops.close();
    }
  }, 90_000);
});

describe("a triggered run of agentd serve", () => {
  test("waits at the desk; only an operator lists it; agentd approvals approve lets the trigger's call through", async () => {
    const { serve, opsFile, dir } = await servedWorld(ASK, { triggers: { interval: { every: "1h", instruction: "clean up" } } });
    const asked = await serve.waitForEvent((e) => e.event === "approval.requested");
    const aliceFile = join(dir, "alice.txt");
    writeFileSync(aliceFile, `${ALICE}\n`);
    const cli = (args: string[], tokenFile: string) => ws!.run(["approvals", ...args, "--url", serve.url.href, "--token-file", tokenFile]);
    const listedByOps = JSON.parse((await cli(["list", "--json"], opsFile)).stdout);
    expect(listedByOps).toEqual([
      expect.objectContaining({ origin: "trigger", state: "pending", request: expect.objectContaining({ id: asked.requestId }) }),
    ]);
    expect(JSON.parse((await cli(["list", "--json"], aliceFile)).stdout)).toEqual([]);
    expect(serverCalls()).toEqual([]);
    expect((await cli(["approve", asked.requestId], opsFile)).code).toBe(0);
    // The run waited saved (its first part ended waiting); approved, it is resumed and goes on to its answer.
    await serve.waitForEvent((e) => e.event === "run.end" && e.stopReason === "final");
    expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
  }, 90_000);
});

describe("two replicas on one Redis store", () => {
  test.skipIf(!redisServerPath)(
    "a question asked on one replica is listed and decided on the other; the waiting run goes on, the tool called once",
    async () => {
      redis = await startRedis();
      const store = { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] };
      const { serve: a, env, dir, opsFile } = await servedWorld(ASK, { durability: { store } });
      const b = await startServe(
        ["--http", "127.0.0.1:0", "--auth-tokens", join(dir, "tokens.txt"), "--operator-tokens", opsFile, "--grace", "1s"],
        { env, cwd: dir },
      );
      const { answer, id } = await aliceAsks(a);
      const onB = (args: string[]) => ws!.run(["approvals", ...args, "--url", b.url.href, "--token-file", opsFile]);
      const listed = JSON.parse((await onB(["list", "--json"])).stdout);
      expect(listed).toEqual([expect.objectContaining({ state: "pending", request: expect.objectContaining({ id }) })]);
      expect((await onB(["approve", id, "--reason", "from replica b"])).code).toBe(0);
      const done = (await answer).response;
      expect(text(done)).toContain("deleted /srv/old");
      expect(serverCalls().map((r) => (r.params as { arguments: { path: string } }).arguments.path)).toEqual(["/srv/old"]);
      expect(await a.waitForEvent((e) => e.event === "approval.decided")).toMatchObject({
        by: "bearer:operator#0",
        reason: "from replica b",
      });
    },
    90_000,
  );
});
