/** A client's task journal: a call journaled before a restart re-attaches to its task, or is made anew when the server forgot it. */
import { afterEach, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { McpError } from "../../wire/errors.ts";
import { McpClient } from "./client.ts";
import { Protocol } from "../protocol/protocol.ts";
import { canonicalJson, type JournaledTask, type TaskCallKey, type TaskJournal } from "./task-journal.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const now = () => new Date().toISOString();
const task = (taskId: string, status: string) => ({ taskId, status, createdAt: now(), lastUpdatedAt: now(), ttl: null, pollInterval: 50 });

/** A task server that knows the task ids in `known` (each completes at its first poll) and creates "t-new". */
async function server(known: string[]) {
  const [a, b] = MemoryTransport.createPair();
  const s = new Protocol(b);
  const log: string[] = [];
  const tasks = new Set(known);
  s.setRequestHandler("initialize", () => ({
    protocolVersion: "2025-11-25",
    capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
    serverInfo: { name: "tasks", version: "1" },
  }));
  s.setRequestHandler("tools/list", () => ({
    tools: [{ name: "work", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }],
  }));
  s.setRequestHandler("tools/call", () => {
    log.push("tools/call");
    tasks.add("t-new");
    return { task: task("t-new", "working") };
  });
  s.setRequestHandler("tasks/get", (p) => {
    log.push(`tasks/get ${String(p.taskId)}`);
    if (!tasks.has(p.taskId as string)) throw new McpError(-32602, `Failed to retrieve task: task ${String(p.taskId)} not found`);
    return task(p.taskId as string, "completed");
  });
  s.setRequestHandler("tasks/result", (p) => {
    log.push(`tasks/result ${String(p.taskId)}`);
    return { content: [{ type: "text", text: `result of ${String(p.taskId)}` }] };
  });
  await s.start();
  closers.push(() => s.close());
  return { transport: a, log };
}

class MapJournal implements TaskJournal {
  readonly entries = new Map<string, JournaledTask>();
  readonly events: string[] = [];
  find(k: TaskCallKey) {
    return this.entries.get(JSON.stringify(k));
  }
  started(k: TaskCallKey, taskId: string) {
    this.events.push(`started ${taskId}`);
    this.entries.set(JSON.stringify(k), { ...k, taskId, startedAt: now() });
  }
  ended(k: TaskCallKey) {
    this.events.push("ended");
    this.entries.delete(JSON.stringify(k));
  }
}

async function client(journal: MapJournal, known: string[]) {
  const { transport, log } = await server(known);
  const c = new McpClient(
    { name: "c", version: "0" },
    { capabilities: { tasks: true }, runId: "run-1", serverName: "peer", taskJournal: journal },
  );
  closers.push(() => c.close());
  await c.connect(transport);
  return { c, log };
}

const key = (args: Record<string, unknown>): TaskCallKey => ({ server: "peer", runId: "run-1", tool: "work", args: canonicalJson(args) });

test("a new call is journaled when the server accepts it as a task, and forgotten once its result is fetched", async () => {
  const journal = new MapJournal();
  const { c, log } = await client(journal, []);
  const r = await c.callTool("work", { b: 2, a: 1 });
  expect(r.content).toEqual([{ type: "text", text: "result of t-new" }]);
  expect(log).toEqual(["tools/call", "tasks/get t-new", "tasks/result t-new"]);
  expect(journal.events).toEqual(["started t-new", "ended"]);
  expect(journal.entries.size).toBe(0);
});

test("the same call of the same run, journaled before a restart, re-attaches to its task: the tool is not called again", async () => {
  const journal = new MapJournal();
  // Argument order does not matter: the key is canonical JSON.
  journal.entries.set(JSON.stringify(key({ a: 1, b: 2 })), { ...key({ a: 1, b: 2 }), taskId: "t-old", startedAt: now() });
  const { c, log } = await client(journal, ["t-old"]);
  const r = await c.callTool("work", { b: 2, a: 1 });
  expect(r.content).toEqual([{ type: "text", text: "result of t-old" }]);
  expect(log).toEqual(["tasks/get t-old", "tasks/result t-old"]);
  expect(journal.entries.size).toBe(0);
});

test("a journaled task the server no longer knows (expired) is called again", async () => {
  const journal = new MapJournal();
  journal.entries.set(JSON.stringify(key({})), { ...key({}), taskId: "t-gone", startedAt: now() });
  const { c, log } = await client(journal, []);
  const r = await c.callTool("work", {});
  expect(r.content).toEqual([{ type: "text", text: "result of t-new" }]);
  expect(log).toEqual(["tasks/get t-gone", "tools/call", "tasks/get t-new", "tasks/result t-new"]);
  expect(journal.events).toEqual(["ended", "started t-new", "ended"]);
});

test("another run's call with the same arguments is not re-attached", async () => {
  const journal = new MapJournal();
  const other = { ...key({}), runId: "run-0" };
  journal.entries.set(JSON.stringify(other), { ...other, taskId: "t-old", startedAt: now() });
  const { c, log } = await client(journal, ["t-old"]);
  await c.callTool("work", {});
  expect(log[0]).toBe("tools/call");
});
