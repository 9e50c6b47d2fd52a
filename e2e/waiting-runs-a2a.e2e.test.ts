/**
 * An A2A task whose run waits durably for a decision, over real processes: `agentd serve --http --a2a` with
 * user and operator tokens, the fake gateway's model calling `fs/delete_file` of the testkit's fake MCP
 * server (its record file, shared by every process's server, is the server's own account of what reached
 * it), a rule asking for it, and the official `@a2a-js/sdk` client. The task's run suspends — saved, its
 * question posted to the approval desk — and the task goes `input-required`; then `kill -9` of the serving
 * process, a new process on the same state directory: GetTask answers the task (still waiting, with the
 * question; another principal is told it does not exist), the operator's follow-up message with the decision
 * resumes the run, the tool is called exactly once with the approved arguments, and GetTask shows the task
 * completed with the answer.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Role, TaskState, type Part, type Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import {
  type DynamicTurn,
  fakeServerCommand,
  startFakeGateway,
  type FakeGateway,
  type FakeServerCommand,
  type RecordedRequest,
} from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const ALICE = "alice-a2a-waiting-token-0123456789";
const BOB = "bob-a2a-waiting-token-0123456789";
const OPS = "ops-a2a-waiting-token-0123456789";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
let redis: RunningRedis | undefined;
afterEach(async () => {
  await stopAllServe();
  await gateway?.close();
  fake?.dispose();
  await redis?.stop();
  ws?.cleanup();
  ws = gateway = fake = redis = undefined;
}, 30_000);

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const serverCalls = () =>
  (fake?.recordedRequests() ?? [])
    .filter((r) => r.method === "tools/call")
    .map((r) => `${(r.params as { name: string }).name} ${JSON.stringify((r.params as { arguments?: unknown }).arguments)}`);

/** A workspace whose model deletes one path (the rule asks), and how to serve it with A2A. */
async function world(extra: Record<string, unknown> = {}, script?: DynamicTurn[]) {
  ws = new CliWorkspace();
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  const dir = ws.dir;
  const { mcpServers, ...rest } = extra;
  ws.writeConfig({
    mcpServers: { fs: fake.config, ...(mcpServers as object) },
    approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] },
    ...rest,
  });
  const users = join(dir, "tokens.txt");
  const ops = join(dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  // One gateway for every process: the model's script goes on where the run left it.
  const g = await startFakeGateway({
    dialect: "openai",
    script: script ?? [
      (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
    ...(script ? { onExhausted: "repeat-last" as const } : {}),
  });
  gateway = g;
  return (name: string) => {
    const env = {
      AGENT_INTELLIGENCE: g.url,
      AGENT_DIALECT: "openai",
      AGENT_MODEL: "m",
      AGENT_API_KEY: "k",
      XDG_STATE_HOME: join(dir, "state"),
      POD_NAME: name,
    };
    return startServe(["--http", "127.0.0.1:0", "--a2a", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
      env,
      cwd: dir,
    });
  };
}

/** The official A2A client of one token's holder, on a serving process. */
async function client(serve: ServeProcess, token: string): Promise<Client> {
  const listening = serve.events().find((e) => e.event === "serve.listening")!;
  const fetchImpl = ((input: RequestInfo | URL, init?: RequestInit) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } })) as typeof fetch;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }),
  );
  return factory.createFromUrl(new URL(String(listening.a2a)).origin);
}

const part = (content: Part["content"]): Part => ({ content, metadata: undefined, filename: "", mediaType: "" });
async function send(c: Client, parts: Part[], ids: { taskId?: string; contextId?: string } = {}): Promise<Task> {
  const r = await c.sendMessage({
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
  if (!("status" in r)) throw new Error("expected a task");
  return r as Task;
}
const getTask = (c: Client, id: string) => c.getTask({ tenant: "", id, historyLength: undefined });
const approval = (t: Task) => (t.status?.message?.parts[1]?.content as { value: Record<string, unknown> } | undefined)?.value;

describe("an A2A task whose run waits for approval waits durably", () => {
  test("kill -9 while it waits; a new process finds the task; the operator's reply resumes it; the tool is called once", async () => {
    const serve = await world();
    const first = await serve("first");
    const asked = await send(await client(first, ALICE), [part({ $case: "text", value: "clean up" })]);
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(approval(asked)).toMatchObject({ kind: "agentd.dev/approval", name: "fs/delete_file", arguments: { path: "/srv/old" } });
    // Saved: the run ended its first part waiting, holding nothing open.
    await first.waitForEvent((e) => e.event === "run.end" && e.stopReason === "waiting");
    expect(serverCalls()).toEqual([]);
    await first.stop("SIGKILL", 0);

    const second = await serve("second");
    const alice = await client(second, ALICE);
    // The task is found again: still waiting, with the same question.
    const found = await getTask(alice, asked.id);
    expect(found.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(approval(found)).toMatchObject({ approvalId: approval(asked)!.approvalId, arguments: { path: "/srv/old" } });
    // Another principal is told it does not exist; the owner may not decide it (the rule says operators).
    const bob = await client(second, BOB);
    expect(String(await getTask(bob, asked.id).catch((e: Error) => e))).toContain("not found");
    const refused = await send(alice, [part({ $case: "data", value: { decision: "approve" } })], {
      taskId: asked.id,
      contextId: asked.contextId,
    }).catch((e: Error) => e);
    expect(String(refused)).toContain("decided by an operator");

    const ops = await client(second, OPS);
    const done = await send(ops, [part({ $case: "data", value: { decision: "approve", reason: "expected" } })], {
      taskId: asked.id,
      contextId: asked.contextId,
    });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(done.artifacts[0]?.parts[0]?.content)).toContain("deleted /srv/old");
    expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    expect(second.events().filter((e) => e.event === "run.resumed")).toHaveLength(1);
    const read = await getTask(alice, asked.id);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(JSON.stringify(read.artifacts[0]?.parts[0]?.content)).toContain("deleted /srv/old");
  }, 120_000);

  test.skipIf(!redisServerPath)(
    "two replicas on one Redis store: the task held on both, the decision given to one; both complete it, the tool called once",
    async () => {
      redis = await startRedis();
      const serve = await world({ durability: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] } } });
      const [a, b] = await Promise.all([serve("replica-a"), serve("replica-b")]);
      const asked = await send(await client(b, ALICE), [part({ $case: "text", value: "clean up" })]);
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      // The other replica finds the task in the store (a client balanced to it), and takes the decision.
      const onA = await getTask(await client(a, ALICE), asked.id);
      expect(onA.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const done = await send(await client(a, OPS), [part({ $case: "data", value: { decision: "approve" } })], {
        taskId: asked.id,
        contextId: asked.contextId,
      });
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(JSON.stringify(done.artifacts[0]?.parts[0]?.content)).toContain("deleted /srv/old");
      // Resumed once, by one of them; the other learns the outcome from the store and completes its task too.
      const resumed = [...a.events(), ...b.events()].filter((e) => e.event === "run.resumed");
      expect(resumed).toHaveLength(1);
      expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
      for (const replica of [a, b]) {
        await replica.waitForEvent((e) => e.event === "a2a.task-ended" && e.task === asked.id);
        const t = await getTask(await client(replica, ALICE), asked.id);
        expect(t.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(JSON.stringify(t.artifacts[0]?.parts[0]?.content)).toContain("deleted /srv/old");
      }
      // Recorded once, by the replica that resumed it: the other lists that record only (none of its own).
      const [resumer, other] = a.events().some((e) => e.event === "run.resumed") ? [a, b] : [b, a];
      const session = await openSession(other.url, { authorization: `Bearer ${ALICE}` });
      let rpc = 100;
      for (let tries = 0; ; tries++) {
        const read = (await call(other.url, session, rpc++, "resources/read", { uri: "agent://runs" })).response as Record<string, any>;
        const runs = (JSON.parse(read.result.contents[0].text).runs as Array<Record<string, any>>).filter((r) => r.runId === asked.id);
        // The resumer's record reaches the fleet's history in the background.
        if (runs.some((r) => r.status === "succeeded" && String(r.replica).endsWith(`-${resumer.pid}`)) || tries === 100) {
          expect(runs.map((r) => [r.status, String(r.replica).endsWith(`-${resumer.pid}`)])).toEqual([["succeeded", true]]);
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    120_000,
  );

  test.skipIf(!Bun.file(EVERYTHING).size)(
    "the resumed part's MCP server elicitation goes to the task held here (input-required), and the answer reaches the tool",
    async () => {
      const serve = await world(
        {
          mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
          capabilities: { elicitation: "operator" },
        },
        [
          (req) =>
            req.lastToolResult === undefined
              ? { toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }
              : /deleted/.test(req.lastToolResult)
                ? { toolCalls: [{ name: tool(req, "trigger-elicitation-request"), arguments: {} }] }
                : { text: req.lastToolResult },
        ],
      );
      const first = await serve("first");
      const ops = await client(first, OPS);
      const asked = await send(ops, [part({ $case: "text", value: "clean up, then sign me up" })]);
      expect(approval(asked)).toMatchObject({ kind: "agentd.dev/approval", name: "fs/delete_file" });
      // Approved: the resumed part deletes, then the everything server elicits — asked on the task, as before the wait.
      const elicited = await send(ops, [part({ $case: "data", value: { decision: "approve" } })], {
        taskId: asked.id,
        contextId: asked.contextId,
      });
      expect(elicited.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const schema = elicited.status?.message?.parts[1]?.content as { value: { requestedSchema: { required: string[] } } } | undefined;
      expect(schema?.value.requestedSchema.required).toEqual(["name"]);
      const done = await send(ops, [part({ $case: "data", value: { name: "Grace Hopper", integer: 7 } })], {
        taskId: asked.id,
        contextId: asked.contextId,
      });
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(JSON.stringify(done.artifacts[0]?.parts[0]?.content)).toContain("Grace Hopper");
      expect(serverCalls()).toEqual(['delete_file {"path":"/srv/old"}']);
    },
    120_000,
  );
});
