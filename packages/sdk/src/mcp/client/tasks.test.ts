/** Tasks on: task-augmented tools/call against a hand-built task receiver. */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { McpClient } from "./client.ts";
import { Protocol } from "../protocol/protocol.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const now = () => new Date().toISOString();
const task = (taskId: string, status: string) => ({ taskId, status, createdAt: now(), lastUpdatedAt: now(), ttl: null, pollInterval: 50 });

/** A server that runs `slow` as a task: `working` for `polls` polls, then `completed` (or never, if Infinity). */
async function taskServer(polls: number) {
  const [a, b] = MemoryTransport.createPair();
  const server = new Protocol(b);
  const log: { method: string; params: Record<string, unknown> }[] = [];
  let remaining = polls;
  let cancelled!: () => void;
  const cancelSeen = new Promise<void>((r) => (cancelled = r));
  let polled!: () => void;
  const pollSeen = new Promise<void>((r) => (polled = r));
  server.setRequestHandler("initialize", () => ({
    protocolVersion: "2025-11-25",
    capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } },
    serverInfo: { name: "tasks", version: "1" },
  }));
  server.setRequestHandler("tools/list", () => ({
    tools: [{ name: "slow", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }],
  }));
  server.setRequestHandler("tools/call", (params) => {
    log.push({ method: "tools/call", params });
    return params.task ? { task: task("t-1", "working") } : { content: [], isError: true };
  });
  server.setRequestHandler("tasks/get", (params) => {
    log.push({ method: "tasks/get", params });
    polled();
    return task(params.taskId as string, --remaining > 0 ? "working" : "completed");
  });
  server.setRequestHandler("tasks/result", (params) => {
    log.push({ method: "tasks/result", params });
    return { content: [{ type: "text", text: "task done" }], _meta: { "io.modelcontextprotocol/related-task": { taskId: "t-1" } } };
  });
  server.setRequestHandler("tasks/cancel", (params) => {
    log.push({ method: "tasks/cancel", params });
    cancelled();
    return task(params.taskId as string, "cancelled");
  });
  await server.start();
  closers.push(() => server.close());
  return { transport: a, log, cancelSeen, pollSeen };
}

describe("task-augmented tools/call (tasks on)", () => {
  test("a task-required tool is offered, called as a task, polled, and its result fetched", async () => {
    const { transport, log } = await taskServer(3);
    const client = new McpClient({ name: "c", version: "0" }, { capabilities: { tasks: true }, runId: "r-1" });
    closers.push(() => client.close());
    await client.connect(transport);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["slow"]);
    const result = await client.callTool("slow", { x: 1 });
    expect(result.content).toEqual([{ type: "text", text: "task done" }]);
    expect(log.map((l) => l.method)).toEqual(["tools/call", "tasks/get", "tasks/get", "tasks/get", "tasks/result"]);
    expect(log[0]?.params).toMatchObject({ name: "slow", arguments: { x: 1 }, task: {}, _meta: { "agentd.dev/run-id": "r-1" } });
    expect(log[4]?.params).toEqual({ taskId: "t-1" });
  });

  test("aborting a task call sends tasks/cancel", async () => {
    const { transport, log, cancelSeen, pollSeen } = await taskServer(Infinity);
    const client = new McpClient({ name: "c", version: "0" }, { capabilities: { tasks: true } });
    closers.push(() => client.close());
    await client.connect(transport);
    const ac = new AbortController();
    const call = client.callTool("slow", {}, { signal: ac.signal }).catch((e) => e.code);
    await pollSeen;
    ac.abort();
    expect(await call).toBe("E_ABORTED");
    await cancelSeen;
    expect(log.find((l) => l.method === "tasks/cancel")?.params).toEqual({ taskId: "t-1" });
  });

  test("a maximum total time past setTimeout's 2^31-1 ms does not end the task call at once", async () => {
    const { transport, log } = await taskServer(2);
    const client = new McpClient({ name: "c", version: "0" }, { capabilities: { tasks: true } });
    closers.push(() => client.close());
    await client.connect(transport);
    // Polling takes two 50 ms intervals: an overflowed timer (1 ms) would have aborted it with E_TIMEOUT.
    const result = await client.callTool("slow", {}, { maxTotalTimeoutMs: 30 * 86_400_000, timeoutMs: 30 * 86_400_000 });
    expect(result.content).toEqual([{ type: "text", text: "task done" }]);
    expect(log.map((l) => l.method)).toEqual(["tools/call", "tasks/get", "tasks/get", "tasks/result"]);
  });
});
