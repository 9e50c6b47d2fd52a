/**
 * A2A `contextId` as a durable conversation, through real `agentd serve --http --a2a` processes and the
 * fake gateway (which records each request's messages): a follow-up with the same contextId after a restart
 * sends the first exchange to the model, and `agentd conversations show` lists both tasks' runs; two
 * replicas on one Redis store continue each other's context; another principal naming the context is
 * refused on either replica, and reads nothing of it over MCP. And a served trigger naming a conversation:
 * its run's record and the conversation name each other.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { call, openSession, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { CLI_MAIN } from "@agentd/test-support/cli-process";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-a2a-token-0123456789abcdef";
const BOB = "bob-a2a-token-0123456789abcdef";

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
let redis: RunningRedis | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  await redis?.stop();
  world = undefined;
  redis = undefined;
}, 30_000);

/** The model says how many user messages it was sent and the last one. */
const countingModel = () =>
  serveWorld([(req) => ({ text: `seen ${req.messages.filter((m) => m.role === "user").length}: ${req.messages.at(-1)?.text}` })], {
    onExhausted: "repeat-last",
  });

/** A blocking A2A v1.0 SendMessage over JSON-RPC; the JSON-RPC answer. */
async function send(serve: ServeProcess, text: string, o: { contextId?: string; token?: string } = {}): Promise<any> {
  const res = await fetch(new URL("/a2a", serve.url), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "a2a-version": "1.0",
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], contextId: o.contextId } },
    }),
  });
  return res.json();
}

/** The user and assistant texts the model was sent in request `i` (the system prompt left out). */
const sent = (i: number) => world!.gateway.requests[i]!.messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.text}`);

test("a follow-up after a restart of agentd serve sends the first exchange; agentd conversations show lists both runs", async () => {
  world = await countingModel();
  world.ws.writeConfig({});
  const env = { ...world.env, XDG_STATE_HOME: join(world.ws.dir, "state") };
  const start = () => startServe(["--http", "127.0.0.1:0", "--a2a", "--grace", "1s"], { env, cwd: world!.ws.dir });

  let serve = await start();
  const first = await send(serve, "summarise the inbox");
  expect(first.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  const contextId = first.result.task.contextId as string;
  await serve.stop();

  serve = await start();
  const second = await send(serve, "now draft replies", { contextId });
  expect(second.result.task.contextId).toBe(contextId);
  expect(second.result.task.artifacts[0].parts[0].text).toBe("seen 2: now draft replies");
  expect(sent(1)).toEqual(["user: summarise the inbox", "assistant: seen 1: summarise the inbox", "user: now draft replies"]);

  // The conversation names both tasks' runs (on loopback without auth the caller is `local`, the CLI's own).
  const show = await world.ws.run(["conversations", "show", contextId], { env });
  expect(show.code).toBe(0);
  expect(show.stdout).toContain(`conversation ${contextId} · 2 runs`);
  expect(show.stdout).toContain(`runs: ${first.result.task.id}, ${second.result.task.id}`);
}, 90_000);

/** MCP `resources/read` of `uri` on a session; the parsed JSON text. */
async function readResource(serve: ServeProcess, session: RawSession, id: number, uri: string): Promise<any> {
  const { response } = await call(serve.url, session, id, "resources/read", { uri });
  return response.error ?? JSON.parse(response.result.contents[0].text);
}

test.skipIf(!redisServerPath)(
  "two replicas on one Redis store continue each other's context; another principal is refused it on either",
  async () => {
    redis = await startRedis();
    world = await countingModel();
    world.ws.writeConfig({
      durability: { store: { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] } },
    });
    const users = join(world.ws.dir, "tokens.txt");
    writeFileSync(users, `${ALICE}\n${BOB}\n`);
    const replica = () =>
      startServe(["--http", "127.0.0.1:0", "--a2a", "--auth-tokens", users, "--grace", "1s"], {
        env: { ...world!.env, XDG_STATE_HOME: join(world!.ws.dir, "unused-state") },
        cwd: world!.ws.dir,
      });
    const [a, b] = await Promise.all([replica(), replica()]);

    const first = await send(a, "summarise the inbox", { token: ALICE });
    const contextId = first.result.task.contextId as string;
    const second = await send(b, "now draft replies", { token: ALICE, contextId });
    expect(second.result.task.artifacts[0].parts[0].text).toBe("seen 2: now draft replies");
    expect(sent(1)).toEqual(["user: summarise the inbox", "assistant: seen 1: summarise the inbox", "user: now draft replies"]);

    // Bob naming Alice's context: refused on both replicas, before any task or model request.
    for (const serve of [a, b]) {
      const refused = await send(serve, "what did alice ask?", { token: BOB, contextId });
      expect(refused.error.code).toBe(-32602);
      expect(refused.error.message).toContain(`contextId ${contextId} belongs to another principal`);
    }
    expect(world.gateway.requests).toHaveLength(2);
    // Over MCP on A: Alice's conversation lists both runs (one ran on each replica); Bob finds nothing.
    const alice = await openSession(a.url, { authorization: `Bearer ${ALICE}` });
    const bob = await openSession(a.url, { authorization: `Bearer ${BOB}` });
    const mine = await readResource(a, alice, 1, `agent://conversations/${contextId}`);
    expect(mine.runs).toEqual([first.result.task.id, second.result.task.id]);
    expect((await readResource(a, bob, 2, "agent://conversations")).conversations).toEqual([]);
    expect((await readResource(a, bob, 3, `agent://conversations/${contextId}`)).code).toBe(-32002);
  },
  120_000,
);

test("a served trigger's run and the conversation it names link each other in agent://runs and agent://conversations", async () => {
  world = await countingModel();
  const config = world.ws.writeConfig({ triggers: { interval: { every: "1h", instruction: "tick", conversation: "ticks" } } });
  const serve = await startServe(["--http", "127.0.0.1:0", "--config", config, "--grace", "1s"], {
    env: { ...world.env, XDG_STATE_HOME: join(world.ws.dir, "state") },
    cwd: world.ws.dir,
  });
  const ended = await serve.waitForEvent((e) => e.event === "trigger.run-end");
  const session = await openSession(serve.url);
  const runs = (await readResource(serve, session, 1, "agent://runs")).runs;
  expect(runs.map((r: any) => [r.runId, r.via, r.conversationId])).toEqual([[ended.runId, "trigger", "ticks"]]);
  expect((await readResource(serve, session, 2, `agent://runs/${ended.runId}`)).conversationId).toBe("ticks");
  expect((await readResource(serve, session, 3, "agent://conversations/ticks")).runs).toEqual([ended.runId]);
}, 60_000);
