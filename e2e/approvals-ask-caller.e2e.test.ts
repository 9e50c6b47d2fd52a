/**
 * `approvals.askCaller` with runs that wait durably: a served MCP caller that declared elicitation is asked
 * about its own run's question by form elicitation while the run is suspended and saved like every served
 * MCP run — so the question survives the process. Real processes: `agentd serve --http` with a user and an
 * operator token, the official MCP SDK client as the caller (its elicitation handler answers, or holds the
 * question open and hears it cancelled), the fake gateway's model calling `fs/delete_file` of the testkit's
 * fake MCP server (its record file, shared by every process's server, is the server's account of its calls).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { call, openSession } from "@agentd/test-support/raw-mcp-http";
import { Client as McpSdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const ALICE = "alice-ask-caller-token-0123456789";
const OPS = "ops-ask-caller-token-0123456789";
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
const clients: McpSdkClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await stopAllServe();
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
  ws = gateway = fake = undefined;
}, 30_000);

const tool = (req: RecordedRequest, suffix: string) => req.tools.find((n) => n.endsWith(suffix))!;
const deleted = () =>
  (fake?.recordedRequests() ?? [])
    .filter((r) => r.method === "tools/call")
    .map((r) => (r.params as { arguments: { path: string } }).arguments.path);

/** A workspace asking for `fs/delete_*` with `askCaller`, and how to serve it (each process on the same state). */
async function world(twoDeletions = false) {
  ws = new CliWorkspace();
  fake = fakeServerCommand({ tools: [{ name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } }] });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: twoDeletions ? "/srv/a" : "/srv/old" } }] }),
      ...(twoDeletions
        ? [(req: RecordedRequest) => ({ toolCalls: [{ name: tool(req, "delete_file"), arguments: { path: "/srv/b" } }] })]
        : []),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  ws.writeConfig({ mcpServers: { fs: fake.config }, approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }], askCaller: true } });
  const users = join(ws.dir, "tokens.txt");
  const ops = join(ws.dir, "operators.txt");
  writeFileSync(users, `${ALICE}\n`);
  writeFileSync(ops, `${OPS}\n`);
  const env = {
    AGENT_INTELLIGENCE: gateway.url,
    AGENT_DIALECT: "openai",
    AGENT_MODEL: "m",
    AGENT_API_KEY: "k",
    XDG_STATE_HOME: join(ws.dir, "state"),
  };
  const dir = ws.dir;
  return () => startServe(["--http", "127.0.0.1:0", "--auth-tokens", users, "--operator-tokens", ops, "--grace", "1s"], { env, cwd: dir });
}

/** What the caller's elicitation handler is given: the question's text, and the request's id and signal. */
type Elicited = { message: string; requestId: string | number; signal: AbortSignal };

/**
 * Alice, as the official MCP SDK client declaring elicitation; `answer` is its elicitation handler, whose
 * signal is aborted when the server cancels the request (this SDK drops a cancellation naming request id 0 —
 * `_oncancel` returns early on a falsy id —, so agentd numbers its requests from 1).
 */
async function alice(serve: ServeProcess, answer: (asked: Elicited) => Promise<ElicitResult>) {
  const client = new McpSdkClient({ name: "alice", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (req, extra) =>
    answer({ message: (req.params as { message: string }).message, requestId: extra.requestId, signal: extra.signal }),
  );
  await client.connect(new StreamableHTTPClientTransport(serve.url, { requestInit: { headers: bearer(ALICE) } }));
  clients.push(client);
  const result = client.callTool({ name: "agent.run", arguments: { instruction: "clean up", runId: "job-1" } }, undefined, {
    timeout: 110_000,
  });
  result.catch(() => {});
  return { result };
}

/** The operator decides a question over MCP (`agent.decide`). */
async function operatorDecides(serve: ServeProcess, id: string, decision: "approve" | "deny") {
  const ops = await openSession(serve.url, bearer(OPS));
  const r = (await call(serve.url, ops, 2, "tools/call", { name: "agent.decide", arguments: { approvalId: id, decision } }))
    .response as Record<string, any>;
  expect(r.result?.isError).toBeFalsy();
  return r;
}

/** The run suspended — saved, holding nothing open — with its question at the desk. */
const suspended = (serve: ServeProcess) => serve.waitForEvent((e) => e.event === "run.end" && e.stopReason === "waiting");

/** An elicitation the caller holds open (never answered): `arrived` when it comes, `gone` when the server cancels it (its signal). */
function heldOpen() {
  let opened!: (requestId: string | number) => void;
  const arrived = new Promise<string | number>((r) => (opened = r));
  let cancelled!: () => void;
  const gone = new Promise<void>((r) => (cancelled = r));
  const answer = ({ requestId, signal }: Elicited) => {
    opened(requestId);
    if (signal.aborted) cancelled();
    else signal.addEventListener("abort", () => cancelled(), { once: true });
    return new Promise<ElicitResult>(() => {});
  };
  return { answer, arrived, gone };
}

describe("approvals.askCaller: the caller is asked while its run waits durably", () => {
  test("the caller approves: the run was suspended and saved, its answer resumes it; the tool is called once; recorded as the caller's", async () => {
    const serve = await world();
    const first = await serve();
    const asked: string[] = [];
    let approve!: () => void;
    const approved = new Promise<void>((r) => (approve = r));
    const { result } = await alice(first, async ({ message }) => {
      asked.push(message);
      await approved;
      return { action: "accept", content: { decision: "approve", reason: "my own cleanup" } };
    });
    await suspended(first);
    approve();
    expect(JSON.stringify((await result).content)).toContain("deleted /srv/old");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain("Approve the call to delete_file on fs");
    expect(deleted()).toEqual(["/srv/old"]);
    expect(await first.waitForEvent((e) => e.event === "approval.decided")).toMatchObject({
      decision: "approve",
      by: "bearer:bearer#0",
      reason: "my own cleanup",
    });
    expect(first.events().filter((e) => e.event === "run.resumed")).toHaveLength(1);
  }, 120_000);

  test("an operator decides first: the caller's elicitation is cancelled, the run resumed, the caller gets the result", async () => {
    const serve = await world();
    const first = await serve();
    const held = heldOpen();
    const { result } = await alice(first, held.answer);
    const asked = await first.waitForEvent((e) => e.event === "approval.requested");
    await suspended(first);
    await held.arrived;
    await operatorDecides(first, asked.requestId as string, "approve");
    await held.gone;
    expect(JSON.stringify((await result).content)).toContain("deleted /srv/old");
    expect(deleted()).toEqual(["/srv/old"]);
  }, 120_000);

  test("kill -9 while the caller's elicitation is open; a new process, the operator decides: the tool is called once, the run in history", async () => {
    const serve = await world();
    const first = await serve();
    const held = heldOpen();
    // The caller's request ends with the process; only its elicitation is lost.
    await alice(first, held.answer);
    const asked = await first.waitForEvent((e) => e.event === "approval.requested");
    await suspended(first);
    await held.arrived;
    await first.stop("SIGKILL", 0);
    expect(deleted()).toEqual([]);

    const second = await serve();
    await operatorDecides(second, asked.requestId as string, "approve");
    await second.waitForEvent((e) => e.event === "approvals.run-resumed");
    expect(deleted()).toEqual(["/srv/old"]);
    expect(second.events().filter((e) => e.event === "run.resumed")).toHaveLength(1);
    const session = await openSession(second.url, bearer(ALICE));
    const read = (await call(second.url, session, 3, "resources/read", { uri: "agent://runs/job-1" })).response as Record<string, any>;
    expect(JSON.parse(read.result.contents[0].text)).toMatchObject({
      runId: "job-1",
      status: "succeeded",
      result: { text: expect.stringContaining("deleted /srv/old") },
    });
  }, 120_000);

  test("a question the resumed part asks goes to the caller too, while it still follows the run", async () => {
    const serve = await world(true);
    const first = await serve();
    const asked: string[] = [];
    const { result } = await alice(first, async ({ message }) => {
      asked.push(message);
      return { action: "accept", content: { decision: "approve" } };
    });
    expect(JSON.stringify((await result).content)).toContain("deleted /srv/b");
    expect(asked).toHaveLength(2);
    expect(asked[1]).toContain("/srv/b");
    expect(deleted()).toEqual(["/srv/a", "/srv/b"]);
    expect(first.events().filter((e) => e.event === "run.resumed")).toHaveLength(2);
  }, 120_000);
});
