/**
 * Conversation ownership with principals from client certificates: `agentd serve --http --a2a` over mutual
 * TLS (a test CA made by openssl), Alice and Bob each holding a certificate of it. Over MCP, `agent.run`
 * with `conversationId` continues the caller's own conversation: Bob's `inbox` is his, and holds nothing of
 * Alice's. Over A2A, Bob naming Alice's `contextId` is refused, and over MCP he neither lists nor reads
 * her conversation. The real CLI in a child process, over loopback.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { call, openSession, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";
import { makeTestPki, type TestPki } from "./__fixtures__/serve/test-pki.ts";

let pki: TestPki;
beforeAll(() => {
  pki = makeTestPki([{ name: "bob", subject: "/CN=bob/O=agents" }]);
}, 120_000);
afterAll(() => pki?.remove());

let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

const tls = (who: "alice" | "bob") => ({ tls: { ca: pki.pem("ca.pem"), cert: pki.pem(`${who}.pem`), key: pki.pem(`${who}.key`) } });

async function serveMtls(): Promise<ServeProcess> {
  world = await serveWorld(
    [(req) => ({ text: `seen ${req.messages.filter((m) => m.role === "user").length}: ${req.messages.at(-1)?.text}` })],
    { onExhausted: "repeat-last" },
  );
  world.ws.writeConfig({});
  const tlsArgs = ["--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key"), "--tls-ca", pki.path("ca.pem")];
  return startServe(["--http", "127.0.0.1:0", "--a2a", ...tlsArgs, "--grace", "1s"], {
    env: { ...world.env, XDG_STATE_HOME: join(world.ws.dir, "state") },
    cwd: world.ws.dir,
  });
}

/** A blocking A2A v1.0 SendMessage over JSON-RPC as the holder of `who`'s certificate. */
async function send(serve: ServeProcess, who: "alice" | "bob", text: string, contextId?: string): Promise<any> {
  const res = await fetch(new URL("/a2a", serve.url), {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], contextId } },
    }),
    ...tls(who),
  });
  return res.json();
}

const mcp = (serve: ServeProcess, who: "alice" | "bob") => openSession(serve.url, {}, tls(who));
const mcpCall = async (
  serve: ServeProcess,
  s: RawSession,
  who: "alice" | "bob",
  id: number,
  method: string,
  params: Record<string, unknown>,
) => (await call(serve.url, s, id, method, params, tls(who))).response;

test("mTLS principals over MCP: agent.run conversationId continues the caller's own; Bob's inbox holds nothing of Alice's", async () => {
  const serve = await serveMtls();
  const [alice, bob] = [await mcp(serve, "alice"), await mcp(serve, "bob")];
  const run = async (who: "alice" | "bob", s: RawSession, id: number, instruction: string) =>
    (await mcpCall(serve, s, who, id, "tools/call", { name: "agent.run", arguments: { instruction, conversationId: "inbox" } })).result;

  const first = await run("alice", alice, 1, "summarise the inbox");
  expect(first.structuredContent.conversationId).toBe("inbox");
  expect((await run("alice", alice, 2, "now draft replies")).content[0].text).toBe("seen 2: now draft replies");
  const bobs = await run("bob", bob, 3, "what did alice ask?");
  expect(bobs.content[0].text).toBe("seen 1: what did alice ask?");
  expect(world!.gateway.requests[2]!.messages.map((m) => m.text).join("\n")).not.toContain("inbox");
  // Each reads only the own: Bob's inbox has his one exchange, Alice's her two.
  const read = async (who: "alice" | "bob", s: RawSession, id: number) =>
    JSON.parse((await mcpCall(serve, s, who, id, "resources/read", { uri: "agent://conversations/inbox" })).result.contents[0].text);
  expect((await read("bob", bob, 4)).messages).toHaveLength(2);
  const hers = await read("alice", alice, 5);
  expect(hers.messages).toHaveLength(4);
  // The run and the conversation name each other: the run by the id agent://runs/{runId} takes.
  const runId = first.structuredContent.runId as string;
  expect(hers.runs[0]).toBe(runId);
  const record = await mcpCall(serve, alice, "alice", 6, "resources/read", { uri: `agent://runs/${runId}` });
  expect(JSON.parse(record.result.contents[0].text).conversationId).toBe("inbox");
}, 90_000);

test("mTLS principals over A2A: Bob naming Alice's contextId is refused; over MCP he neither lists nor reads it", async () => {
  const serve = await serveMtls();
  const first = await send(serve, "alice", "summarise the inbox");
  const contextId = first.result.task.contextId as string;
  const refused = await send(serve, "bob", "what did alice ask?", contextId);
  expect(refused.error.code).toBe(-32602);
  expect(refused.error.message).toBe(
    `contextId ${contextId} belongs to another principal: you can continue only your own contexts (send none to start a new one)`,
  );
  expect(world!.gateway.requests).toHaveLength(1);
  // Alice's follow-up sees her first exchange, untouched by Bob's attempt.
  expect((await send(serve, "alice", "now draft replies", contextId)).result.task.artifacts[0].parts[0].text).toBe(
    "seen 2: now draft replies",
  );

  const bob = await mcp(serve, "bob");
  const listed = await mcpCall(serve, bob, "bob", 1, "resources/read", { uri: "agent://conversations" });
  expect(JSON.parse(listed.result.contents[0].text).conversations).toEqual([]);
  const one = await mcpCall(serve, bob, "bob", 2, "resources/read", { uri: `agent://conversations/${contextId}` });
  expect(one.error.code).toBe(-32002);
  const alice = await mcp(serve, "alice");
  const hers = await mcpCall(serve, alice, "alice", 3, "resources/read", { uri: "agent://conversations" });
  expect(JSON.parse(hers.result.contents[0].text).conversations.map((c: { id: string; runs: number }) => [c.id, c.runs])).toEqual([
    [contextId, 2],
  ]);
}, 90_000);
