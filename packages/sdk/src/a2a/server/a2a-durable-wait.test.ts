/**
 * An A2A task whose run waits for approval, found again by a second served agent on the same stores (the
 * first closed, as after a restart): JSON-RPC on 127.0.0.1 with bearer tokens, a local tool that asks, the
 * approval desk and the waiting runs in one directory. The task is rebuilt from its record for its owner only
 * (another principal's GetTask and follow-up say TaskNotFound); decided over A2A or at the desk before anyone
 * asks for the task, it ends completed with the resumed run's answer, and the tool runs once.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";
import { LocalDocuments } from "../../agent/conversations/local-documents.ts";
import type { AgentOptions } from "../../agent/create-agent.ts";
import { callTools, reply, type Step } from "../../loop/__fixtures__/scripted-model.ts";
import { createLogger, type LogRecord } from "../../log.ts";
import { StoredApprovalDesk } from "../../serve/approvals/stored-desk.ts";
import { tool } from "../../tool/tool.ts";

setDefaultTimeout(30_000);

const ALICE = "alice-durable-token-0123456789";
const BOB = "bob-durable-token-0123456789";
const OPS = "ops-durable-token-0123456789";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const pathSchema = {
  "~standard": {
    version: 1 as const,
    vendor: "test",
    validate: (v: unknown) =>
      typeof (v as { path?: unknown })?.path === "string"
        ? { value: v as { path: string } }
        : { issues: [{ message: "path is required" }] },
  },
};

/** One "process": an agent served over A2A on the shared directory, its model answering `steps`; `onLog` hears its log. */
async function serveOn(
  dir: string,
  steps: Step[],
  ran: string[],
  onLog: (record: LogRecord) => void = () => {},
): Promise<ServedAgent & { desk: StoredApprovalDesk }> {
  const documents = new LocalDocuments(dir);
  const clean = tool({
    name: "clean",
    description: "delete a path",
    parameters: pathSchema,
    jsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    execute: ({ path }) => (ran.push(path), `cleaned ${path}`),
  });
  const desk = new StoredApprovalDesk(async () => documents);
  const agent: Partial<AgentOptions> = {
    tools: [clean],
    approvals: { rules: [{ tool: "clean", decision: "ask" }], desk },
    durability: { waitingRuns: documents },
  };
  const s = await serveA2aAgent({
    steps,
    agent,
    logger: createLogger(onLog, { level: "info" }),
    http: {
      auth: {
        bearerTokens: [
          { token: ALICE, name: "alice" },
          { token: BOB, name: "bob" },
          { token: OPS, name: "ops", role: "operator" },
        ],
      },
    },
  });
  cleanups.push(() => s.close());
  return { ...s, desk };
}

async function rpc(base: string, token: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.json();
}
const message = (parts: unknown[], ids: { taskId?: string; contextId?: string } = {}) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts, ...ids },
});
const question = (task: any) => task.status.message.parts[1].data;

/** A task of alice's whose run waits saved, and the first agent closed (a restart); the directory both use. */
async function waitingTask(): Promise<{ dir: string; task: any; ran: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-a2a-durable-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const ran: string[] = [];
  const first = await serveOn(dir, [callTools([["clean", { path: "/a" }]])], ran);
  const sent = await rpc(first.base, ALICE, "SendMessage", message([{ text: "clean /a" }]));
  const task = sent.result.task;
  expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
  expect(question(task)).toMatchObject({ kind: "agentd.dev/approval", name: "clean", arguments: { path: "/a" } });
  await first.close();
  return { dir, task, ran };
}

test("after a restart the task is its owner's only: rebuilt with its question; an operator's reply resumes the run once", async () => {
  const { dir, task, ran } = await waitingTask();
  const second = await serveOn(dir, [reply("all clean")], ran);

  const bobs = await rpc(second.base, BOB, "GetTask", { id: task.id });
  expect(bobs.error).toMatchObject({ code: -32001 });
  const bobAnswers = await rpc(second.base, BOB, "SendMessage", message([{ data: { decision: "approve" } }], { taskId: task.id }));
  expect(bobAnswers.error).toMatchObject({ code: -32001 });

  const found = (await rpc(second.base, ALICE, "GetTask", { id: task.id })).result;
  expect(found).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
  expect(question(found).approvalId).toBe(question(task).approvalId);
  expect(found.history[0].parts).toEqual([{ text: "clean /a" }]);
  expect(ran).toEqual([]);

  const decided = await rpc(
    second.base,
    OPS,
    "SendMessage",
    message([{ data: { decision: "approve" } }], { taskId: task.id, contextId: task.contextId }),
  );
  expect(decided.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  expect(decided.result.task.artifacts[0].parts).toEqual([{ text: "all clean" }]);
  expect(ran).toEqual(["/a"]);
  const read = (await rpc(second.base, ALICE, "GetTask", { id: task.id })).result;
  expect(read.status.state).toBe("TASK_STATE_COMPLETED");
  expect((await rpc(second.base, BOB, "GetTask", { id: task.id })).error).toMatchObject({ code: -32001 });
});

test("decided at the desk before anyone asks for the task: the run resumes with nobody holding it; GetTask answers it completed", async () => {
  const { dir, task, ran } = await waitingTask();
  let resumed!: (record: LogRecord) => void;
  const recorded = new Promise<LogRecord>((resolve) => (resumed = resolve));
  // Resumed here with nobody holding the task: recorded in the run history once the run returned.
  const second = await serveOn(dir, [reply("all clean")], ran, (r) => r.event === "approvals.run-resumed" && resumed(r));
  await second.desk.decide(question(task).approvalId, { decision: "approve" }, { operator: true });
  expect(await recorded).toMatchObject({ status: "finished", recorded: true });
  expect(ran).toEqual(["/a"]);
  const read = (await rpc(second.base, ALICE, "GetTask", { id: task.id })).result;
  expect(read.status.state).toBe("TASK_STATE_COMPLETED");
  expect(read.artifacts[0].parts).toEqual([{ text: "all clean" }]);
});

test("a task canceled while its run waits saved: its question is denied, so no later approval makes the call", async () => {
  const { dir, task, ran } = await waitingTask();
  let resumed!: (record: LogRecord) => void;
  const recorded = new Promise<LogRecord>((resolve) => (resumed = resolve));
  const second = await serveOn(dir, [reply("left alone")], ran, (r) => r.event === "approvals.run-resumed" && resumed(r));
  const canceled = await rpc(second.base, ALICE, "CancelTask", { id: task.id });
  expect(canceled.result.status.state).toBe("TASK_STATE_CANCELED");
  // The denial resumes the run (the model reads it); the call is never made.
  await recorded;
  const q = await second.desk.get(question(task).approvalId, { operator: true });
  expect(q?.decision).toMatchObject({ decision: "deny", reason: "the A2A task was canceled" });
  await expect(second.desk.decide(question(task).approvalId, { decision: "approve" }, { operator: true })).rejects.toThrow(
    "already decided",
  );
  expect(ran).toEqual([]);
  expect((await rpc(second.base, ALICE, "GetTask", { id: task.id })).result.status.state).toBe("TASK_STATE_CANCELED");
});
