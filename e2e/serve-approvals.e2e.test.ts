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
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession, type RawSession } from "@agentd/test-support/raw-mcp-http";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";
const OPS = "ops-token-0123456789abcdef";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
afterEach(async () => {
  await stopAllServe();
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
  ws = gateway = fake = undefined;
}, 30_000);

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const serverCalls = () => (fake?.recordedRequests() ?? []).filter((r) => r.method === "tools/call");
const text = (r: Record<string, any>) => r.result?.content?.[0]?.text as string;

/** `agentd serve --http` whose model deletes one path (the rule asks), with alice, bob and an operator. */
export async function servedWorld(approvals: Record<string, unknown> = { rules: [{ tool: "fs/delete_*", decision: "ask" }] }) {
  ws = new CliWorkspace();
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/old" } }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  ws.writeConfig({ mcpServers: { fs: fake.config }, approvals });
  const users = join(ws.dir, "tokens.txt");
  const ops = join(ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n${BOB}\n`);
  writeFileSync(ops, `${OPS}\n`);
  const env = {
    AGENT_INTELLIGENCE: gateway.url,
    AGENT_DIALECT: "openai",
    AGENT_MODEL: "m",
    AGENT_API_KEY: "k",
    XDG_STATE_HOME: join(ws.dir, "state"),
  };
  const serve = await startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], {
    env,
    cwd: ws.dir,
  });
  return { serve, env, dir: ws.dir, opsFile: ops };
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
