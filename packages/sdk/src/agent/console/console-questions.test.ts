/**
 * What the agent waits on, through the console mount on a real HTTP listener (127.0.0.1, port 0): a small
 * approval desk built from the desk's interface (the served desk is proven end to end in
 * e2e/console-questions.e2e.test.ts) and A2A tasks in `input-required`. Each user sees only the questions of
 * its own runs and may answer none; the operator sees all and decides (recorded with its principal and
 * reason, bound to the digest) or answers an elicitation; the event stream pushes a question as it is asked.
 */
import { afterEach, expect, test } from "bun:test";
import type { Message, Task } from "../../a2a/shared/types.ts";
import type { ApprovalDesk, ApprovalViewer, PendingApproval } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import { nullLogger } from "../../log.ts";
import { type Principal, scopedRunId } from "../../serve/principal.ts";
import { RunRegistry } from "../../serve/run-registry.ts";
import { AgentdError } from "../../wire/errors.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../../transport/http-server/index.ts";
import { createConsoleMount, type ConsoleMount } from "./console-mount.ts";
import { runOf } from "./console-questions.ts";

const ALICE = "alice-questions-unit-token";
const BOB = "bob-questions-unit-token";
const OPS = "ops-questions-unit-token";
const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const alice: Principal = { id: "bearer:alice", role: "user" };

/** A desk from the interface alone: questions in a map, the viewer rule the interface states. */
function smallDesk(): ApprovalDesk & { ask(r: ApprovalRequest, principal: string): void } {
  const held = new Map<string, PendingApproval>();
  const listeners = new Set<(id: string) => void>();
  const may = (p: PendingApproval, v: ApprovalViewer) => v.operator || p.principal === v.principal;
  const desk = {
    ask(request: ApprovalRequest, principal: string) {
      held.set(request.id, { request, principal, origin: "mcp", state: "pending" });
      for (const l of listeners) l(request.id);
    },
    list: async (v: ApprovalViewer) => [...held.values()].filter((p) => may(p, v)),
    get: async (id: string, v: ApprovalViewer) => {
      const p = held.get(id);
      return p && may(p, v) ? p : undefined;
    },
    async decide(id: string, d: Parameters<ApprovalDesk["decide"]>[1], v: ApprovalViewer) {
      const p = held.get(id);
      if (!p) throw new AgentdError("E_USAGE", `no question ${id}`);
      if (!v.operator) throw new AgentdError("E_UNAUTHORIZED", "operators decide");
      if (p.state === "decided") throw new AgentdError("E_USAGE", `${id} was already decided by ${p.decision!.by}`);
      if (d.digest && d.digest !== p.request.digest) throw new AgentdError("E_USAGE", "the digest is not the call's");
      p.state = "decided";
      p.decision = { ...d, by: d.by ?? "?", at: new Date().toISOString() };
      for (const l of listeners) l(id);
      return p;
    },
    post: async () => {
      throw new Error("not used");
    },
    watch(l: (id: string) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    channelFor: () => {
      throw new Error("not used");
    },
  };
  return desk;
}

const request = (id: string, runId: string, args: Record<string, unknown>): ApprovalRequest => ({
  id,
  runId,
  toolCallId: `call-${id}`,
  name: "fs_delete_file",
  server: "fs",
  tool: "delete_file",
  arguments: args,
  digest: `digest-${id}`,
  rule: { source: "rules", index: 0, label: 'approvals.rules[0] (tool "fs/delete_*")' },
  requestedAt: new Date().toISOString(),
});

const waitingTask = (id: string): Task => ({
  id,
  contextId: `ctx-${id}`,
  status: {
    state: "TASK_STATE_INPUT_REQUIRED",
    timestamp: new Date().toISOString(),
    message: {
      messageId: "m",
      role: "ROLE_AGENT",
      parts: [
        { text: "Your name, please" },
        { data: { requestedSchema: { type: "object", properties: { name: { type: "string" } } }, server: "signup" } },
      ],
    },
  },
});

let server: StreamableHttpServer | undefined;
let mount: ConsoleMount | undefined;
afterEach(async () => {
  mount?.close();
  await server?.close();
  server = mount = undefined;
});

async function start() {
  const desk = smallDesk();
  const sent: { who: Principal; message: Message }[] = [];
  const tasks = [
    { owner: "bearer:alice", task: waitingTask("t-alice") },
    { owner: "bearer:bob", task: waitingTask("t-bob") },
    // A task whose run waits for a tool approval is input-required too: that question is the desk's, not an elicitation.
    {
      owner: "bearer:alice",
      task: {
        ...waitingTask("t-approval"),
        status: {
          state: "TASK_STATE_INPUT_REQUIRED" as const,
          message: {
            messageId: "m2",
            role: "ROLE_AGENT" as const,
            parts: [{ text: "The call waits for approval" }, { data: { kind: "agentd.dev/approval", approvalId: "apr-x" } }],
          },
        },
      },
    },
  ];
  mount = createConsoleMount({
    registry: new RunRegistry(),
    facts: { lifecycle: () => ({ state: "running" }), ready: async () => ({ ok: true }) },
    operators: new Set(),
    authRequired: true,
    approvals: desk,
    a2aSend: (who, message) => void sent.push({ who, message }),
    operator: { tasks: { unfinished: () => tasks, cancel: () => tasks[0]!.task } },
    refreshMs: 60_000,
    logger: nullLogger,
  });
  server = await createStreamableHttpServer({
    hostname: "127.0.0.1",
    port: 0,
    auth: {
      bearerTokens: [
        { token: ALICE, name: "alice" },
        { token: BOB, name: "bob" },
        { token: OPS, name: "ops", role: "operator" },
      ],
    },
    onsession: () => {},
    mounts: [mount],
  });
  const at = (path: string) => new URL(path, server!.url).href;
  const snapshot = async (t: string) => (await (await fetch(at("/console/api/snapshot"), { headers: auth(t) })).json()) as any;
  const post = (t: string, action: string, body: unknown, type = "application/json") =>
    fetch(at(`/console/api/${action}`), { method: "POST", headers: { ...auth(t), "content-type": type }, body: JSON.stringify(body) });
  return { desk, sent, at, snapshot, post };
}

test("a user sees only its own runs' questions and may answer none; the operator sees all", async () => {
  const { desk, snapshot, post } = await start();
  desk.ask(request("apr-a", scopedRunId(alice, "run-a"), { path: "/tmp/a", token: "sk-live-0123456789abcdef0123" }), "bearer:alice");
  desk.ask(request("apr-b", "run-b", { path: "/tmp/b" }), "bearer:bob");
  const mine = (await snapshot(ALICE)).questions;
  expect(mine.approvals.map((a: any) => [a.id, a.run])).toEqual([["apr-a", { principal: "bearer:alice", runId: "run-a" }]]);
  expect(mine.approvals[0]).toMatchObject({
    tool: "delete_file",
    server: "fs",
    rule: 'approvals.rules[0] (tool "fs/delete_*")',
    state: "pending",
  });
  expect(mine.approvals[0].arguments).toContain('"path":"/tmp/a"');
  expect(mine.approvals[0].arguments).not.toContain("sk-live-0123456789abcdef0123");
  expect(mine.elicitations.map((e: any) => [e.id, e.message, e.server])).toEqual([["t-alice", "Your name, please", "signup"]]);
  const all = (await snapshot(OPS)).questions;
  expect(all.approvals.map((a: any) => a.id)).toEqual(["apr-a", "apr-b"]);
  expect(all.elicitations.map((e: any) => e.id)).toEqual(["t-alice", "t-bob"]);
  // Alice may not decide even her own run's question, nor answer its elicitation.
  expect((await post(ALICE, "approve", { id: "apr-a" })).status).toBe(403);
  expect((await post(ALICE, "answer", { taskId: "t-alice", principal: "bearer:alice", action: "decline" })).status).toBe(403);
  expect((await desk.get("apr-a", { operator: true }))?.state).toBe("pending");
});

test("the operator approves and denies with a reason, bound to the digest; stale, unknown and cross-site answers are refused", async () => {
  const { desk, snapshot, post } = await start();
  desk.ask(request("apr-1", "run-1", { path: "/a" }), "bearer:alice");
  desk.ask(request("apr-2", "run-1", { path: "/b" }), "bearer:alice");
  expect((await post(OPS, "approve", { id: "apr-1" }, "text/plain")).status).toBe(415);
  expect((await post(OPS, "approve", { id: "apr-1", digest: "digest-of-another-call" })).status).toBe(409);
  const ok = await post(OPS, "approve", { id: "apr-1", digest: "digest-apr-1", reason: "fine" });
  expect(ok.status).toBe(200);
  expect((await ok.json()).result).toMatchObject({
    id: "apr-1",
    state: "decided",
    decision: { decision: "approve", by: "bearer:ops", reason: "fine" },
  });
  expect((await post(OPS, "deny", { id: "apr-2", reason: "  keep /b  " })).status).toBe(200);
  expect((await desk.get("apr-2", { operator: true }))?.decision).toMatchObject({ decision: "deny", by: "bearer:ops", reason: "keep /b" });
  const again = await post(OPS, "deny", { id: "apr-1" });
  expect(again.status).toBe(409);
  expect((await again.json()).error.message).toContain("already decided by bearer:ops");
  expect((await post(OPS, "approve", { id: "apr-nope" })).status).toBe(404);
  // The decisions, as Alice's view of her run shows them.
  const decided = (await snapshot(ALICE)).questions.approvals.map((a: any) => [
    a.id,
    a.state,
    a.decision?.decision,
    a.decision?.by,
    a.decision?.reason,
  ]);
  expect(decided).toEqual([
    ["apr-1", "decided", "approve", "bearer:ops", "fine"],
    ["apr-2", "decided", "deny", "bearer:ops", "keep /b"],
  ]);
});

test("the operator answers an elicitation as an A2A follow-up on the task; a task that waits on nothing is not found", async () => {
  const { sent, post } = await start();
  expect((await post(OPS, "answer", { taskId: "t-alice", principal: "bearer:alice", action: "accept" })).status).toBe(400);
  expect((await post(OPS, "answer", { taskId: "t-alice", principal: "bearer:bob", action: "decline" })).status).toBe(404);
  expect((await post(OPS, "answer", { taskId: "t-approval", principal: "bearer:alice", action: "decline" })).status).toBe(404);
  const ok = await post(OPS, "answer", { taskId: "t-alice", principal: "bearer:alice", action: "accept", content: { name: "Grace" } });
  expect(ok.status).toBe(200);
  expect(sent).toEqual([
    {
      who: expect.objectContaining({ id: "bearer:ops", role: "operator" }),
      message: expect.objectContaining({
        role: "ROLE_USER",
        taskId: "t-alice",
        contextId: "ctx-t-alice",
        parts: [{ data: { name: "Grace" }, mediaType: "application/json" }],
        metadata: { "agentd.dev/elicitation-action": "accept" },
      }),
    },
  ]);
});

test("the event stream pushes a question when the desk hears of it", async () => {
  const { desk, at } = await start();
  const res = await fetch(at("/console/events"), { headers: auth(ALICE) });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (): Promise<any> => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").find((l) => l.startsWith("data: "));
        if (data) return JSON.parse(data.slice(6));
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += value;
    }
  };
  expect((await next()).questions.approvals).toEqual([]);
  desk.ask(request("apr-live", "run-live", { path: "/x" }), "bearer:alice");
  expect((await next()).questions.approvals.map((a: any) => a.id)).toEqual(["apr-live"]);
  await reader.cancel();
});

test("a question's run is named as the history names it: a served run's scoped id back to its own", () => {
  expect(runOf(scopedRunId(alice, "r-1"), "bearer:alice")).toEqual({ principal: "bearer:alice", runId: "r-1" });
  expect(runOf("r@1", "bearer:alice")).toEqual({ principal: "bearer:alice", runId: "r@1" });
  expect(runOf("local-run", undefined)).toEqual({ principal: "local", runId: "local-run" });
});
