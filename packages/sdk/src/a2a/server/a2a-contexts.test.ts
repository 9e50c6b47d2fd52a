/**
 * An A2A `contextId` is its sender's durable conversation (contexts.ts): a follow-up continues it as turns,
 * another principal sending the same id is refused before any task exists (both bindings' unary and
 * streaming sends), an id that cannot name a conversation is refused, and the owner reads it over MCP as
 * `agent://conversations/{id}` — linked both ways with the task's run in `agent://runs/{runId}` — whose
 * subscribers (the owner's only) hear when a run on it ends. Real HTTP
 * on 127.0.0.1, two bearer tokens; MCP through the official SDK client.
 */
import { afterEach, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";

let s: ServedAgent | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await s?.close();
  s = undefined;
});

const serve = () =>
  serveA2aAgent({
    http: {
      auth: {
        bearerTokens: [
          { token: ALICE, name: "alice" },
          { token: BOB, name: "bob" },
        ],
      },
    },
  });

/** A v1.0 JSON-RPC call as the holder of `token`. */
async function rpc(base: string, token: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.json();
}

const send = (base: string, token: string, text: string, contextId?: string) =>
  rpc(base, token, "SendMessage", { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], contextId } });

/** The user and assistant texts of the model's request number `i`. */
const sentIn = (agent: ServedAgent, i: number) =>
  agent.model.requests[i]!.messages.filter((m) => m.role !== "system").map((m) => (typeof m.content === "string" ? m.content : ""));

async function mcpAs(agent: ServedAgent, token: string): Promise<Client> {
  const c = new Client({ name: "a2a-contexts-test", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(agent.mcp, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(c);
  return c;
}
const read = async (c: Client, uri: string) => JSON.parse(((await c.readResource({ uri })).contents[0] as { text: string }).text);

test("a follow-up continues the sender's context; another principal's contextId is refused, unary and streaming", async () => {
  s = await serve();
  const first = await send(s.base, ALICE, "summarise the inbox");
  const contextId = first.result.task.contextId as string;
  expect(first.result.task.status.state).toBe("TASK_STATE_COMPLETED");

  // Bob naming Alice's context: refused with one line, no task made, nothing sent to the model.
  const refused = await send(s.base, BOB, "what did alice ask?", contextId);
  expect(refused.error.code).toBe(-32602);
  expect(refused.error.message).toBe(
    `contextId ${contextId} belongs to another principal: you can continue only your own contexts (send none to start a new one)`,
  );
  const streamed = await fetch(`${s.base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${BOB}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "SendStreamingMessage",
      params: { message: { messageId: "m-bob", role: "ROLE_USER", parts: [{ text: "and now?" }], contextId } },
    }),
  });
  const events = (await streamed.text()).split("\n").filter((l) => l.startsWith("data: "));
  expect(events).toHaveLength(1);
  expect(JSON.parse(events[0]!.slice(6)).error.code).toBe(-32602);
  const rest = await fetch(`${s.base}/a2a/rest/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: `Bearer ${BOB}` },
    body: JSON.stringify({ message: { messageId: "m-bob-rest", role: "ROLE_USER", parts: [{ text: "and?" }], contextId } }),
  });
  expect(rest.status).toBe(400);
  expect((await rpc(s.base, BOB, "ListTasks", {})).result.tasks).toEqual([]);
  expect(s.model.requests).toHaveLength(1);

  // Alice's follow-up sees her first exchange as the turns it was, and nothing of Bob's.
  const second = await send(s.base, ALICE, "now draft replies", contextId);
  expect(second.result.task.contextId).toBe(contextId);
  expect(sentIn(s, 1)).toEqual(["summarise the inbox", "", "now draft replies"]);
  expect(JSON.stringify(s.model.requests[1]!.messages)).toContain("echo: summarise the inbox");
}, 60_000);

test("a contextId that cannot name a conversation is refused; a client's own valid one is kept", async () => {
  s = await serve();
  const bad = await send(s.base, ALICE, "hello", "a/b");
  expect(bad.error.code).toBe(-32602);
  expect(bad.error.message).toContain("cannot name a conversation: use 1-64 characters of A-Z a-z 0-9 . _ -");
  const named = await send(s.base, ALICE, "hello", "inbox-2026");
  expect(named.result.task.contextId).toBe("inbox-2026");
  expect(named.result.task.status.state).toBe("TASK_STATE_COMPLETED");
}, 60_000);

test("agent://conversations lists the caller's own; a conversation and its task's run name each other", async () => {
  s = await serve();
  const first = await send(s.base, ALICE, "summarise the inbox");
  const contextId = first.result.task.contextId as string;
  const second = await send(s.base, ALICE, "now draft replies", contextId);
  const [alice, bob] = [await mcpAs(s, ALICE), await mcpAs(s, BOB)];

  const listed = (await read(alice, "agent://conversations")).conversations;
  expect(listed.map((c: any) => [c.id, c.title, c.runs, c.messages, c.lastRunId])).toEqual([
    [contextId, "summarise the inbox", 2, 4, second.result.task.id],
  ]);
  expect(listed[0].bytes).toBeGreaterThan(0);
  expect(typeof listed[0].updatedAt).toBe("string");
  // The runs are named as agent://runs/{runId} takes them, and each run names its conversation.
  const one = await read(alice, `agent://conversations/${contextId}`);
  expect(one.runs).toEqual([first.result.task.id, second.result.task.id]);
  expect(one.messages).toHaveLength(4);
  expect(one.owner).toBeUndefined();
  const run = await read(alice, `agent://runs/${second.result.task.id}`);
  expect(run.conversationId).toBe(contextId);
  expect((await read(alice, "agent://runs")).runs.map((r: any) => r.conversationId)).toEqual([contextId, contextId]);

  // Bob lists none and cannot read Alice's: not found, as an unknown id.
  expect((await read(bob, "agent://conversations")).conversations).toEqual([]);
  await expect(bob.readResource({ uri: `agent://conversations/${contextId}` })).rejects.toThrow(`no conversation ${contextId} of yours`);
}, 60_000);

test("subscribers of agent://conversations hear when a run on one of theirs ends; another principal's do not", async () => {
  s = await serve();
  const [alice, bob] = [await mcpAs(s, ALICE), await mcpAs(s, BOB)];
  const heard = { alice: [] as string[], bob: [] as string[] };
  let wake = () => {};
  alice.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.alice.push(n.params.uri);
    wake();
  });
  bob.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.bob.push(n.params.uri));
  await alice.subscribeResource({ uri: "agent://conversations" });
  await bob.subscribeResource({ uri: "agent://conversations" });
  const heardOne = new Promise<void>((r) => (wake = r));
  const sent = await send(s.base, ALICE, "summarise the inbox");
  await heardOne;
  expect(heard.alice).toEqual(["agent://conversations"]);
  // Bob's session hears of his own: a run of his, after Alice's, is the first (and only) thing he hears.
  const bobHeard = new Promise<void>((r) =>
    bob.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.bob.push(n.params.uri);
      r();
    }),
  );
  await send(s.base, BOB, "his own");
  await bobHeard;
  expect(heard.bob).toEqual(["agent://conversations"]);
  expect(sent.result.task.status.state).toBe("TASK_STATE_COMPLETED");
}, 60_000);
