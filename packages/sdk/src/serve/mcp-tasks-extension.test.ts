/**
 * The tasks extension (`io.modelcontextprotocol/tasks`) of 2026-07-28, served from agentd's one task
 * store (`McpTaskTable`, the same that serves 2025-11-25 `tasks/*`): driven by a raw stateless client and
 * by agentd's own client, over a memory pair. Every message the server sends validates against the
 * official 2026-07-28 schema (core messages) or the extension's schema (its own), see
 * `__fixtures__/tasks-extension-oracle.ts`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../transport/memory.ts";
import { McpClient } from "../mcp/client/client.ts";
import { McpServer } from "../mcp/server/server.ts";
import { McpError } from "../wire/errors.ts";
import type { CallToolResult } from "../wire/index.ts";
import { STATELESS_META } from "../wire/schemas/methods-2026-07-28.ts";
import { TASKS_EXTENSION } from "../wire/schemas/tasks-extension.ts";
import { RawPeer } from "../mcp/__fixtures__/test-peer.ts";
import { NEEDS_SHARED, sharedMissing, validateOfficial } from "@agentd/test-support/oracle";
import { validateTasksExtension } from "@agentd/test-support/tasks-extension-oracle";
import { McpTaskTable } from "./mcp-tasks.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

const REV = "2026-07-28";
/** The context of a request without credentials (the task table's "local" principal). */
const LOCAL = { authInfo: undefined } as never;
/** Wait until the table settled a task (its outcome recorded), without sleeping. */
const settled = (table: McpTaskTable, taskId: string) =>
  table.result(taskId, LOCAL).then(
    () => {},
    () => {},
  );
const EXT = { extensions: { [TASKS_EXTENSION]: {} } };
const meta = (caps: Record<string, unknown> = EXT) => ({
  [STATELESS_META.protocolVersion]: REV,
  [STATELESS_META.clientCapabilities]: caps,
  [STATELESS_META.clientInfo]: { name: "raw", version: "1" },
});

/** A tool whose outcome each call's test decides: `gates[n]` settles the n-th call. */
function world(options: { tasks?: boolean } = {}) {
  const gates: { resolve(r: CallToolResult): void; reject(e: unknown): void; signal: AbortSignal }[] = [];
  const arrived: (() => void)[] = [];
  const table = new McpTaskTable({ ownerOf: (ctx) => ctx.authInfo?.principal ?? "local", pollIntervalMs: 20 });
  const server = new McpServer({ name: "srv", version: "1" }, { capabilities: { tasks: options.tasks ?? true }, tasks: table });
  closers.push(() => server.close());
  const slow = (support: "optional" | "required" | "forbidden") =>
    server.tool(
      { name: `slow-${support}`, inputSchema: { type: "object" }, execution: { taskSupport: support } },
      (_args, ctx) =>
        new Promise<CallToolResult>((resolve, reject) => {
          gates.push({ resolve, reject, signal: ctx.signal });
          arrived.shift()?.();
        }),
    );
  slow("optional");
  slow("required");
  slow("forbidden");
  const nextCall = (): Promise<void> => (gates.length > 0 ? Promise.resolve() : new Promise((r) => arrived.push(r)));
  return { server, table, gates, nextCall };
}

async function raw(server: McpServer) {
  const [a, b] = MemoryTransport.createPair();
  await server.connect(b);
  const peer = await RawPeer.attach(a);
  closers.push(() => a.close());
  return peer;
}

/** Every message `peer` received, each checked by the oracle that defines it. */
function expectValid(peer: RawPeer, methods: Map<unknown, string>): void {
  const wrong: string[] = [];
  for (const m of peer.received) {
    const method = m.method ?? methods.get(m.id);
    const ext =
      method === "notifications/tasks" || (m.result !== undefined && (method?.startsWith("tasks/") || m.result.resultType === "task"));
    const v = ext ? validateTasksExtension(m, method) : validateOfficial(REV, m, method);
    if (!v.ok) wrong.push(`${JSON.stringify(m).slice(0, 160)}: ${v.errors}`);
  }
  expect(wrong).toEqual([]);
}

/** A raw client remembering which method each of its requests was. */
async function recordingRaw(server: McpServer) {
  const peer = await raw(server);
  const methods = new Map<unknown, string>();
  let id = 1;
  const request = async (method: string, params: Record<string, unknown>) => {
    const n = id++;
    methods.set(n, method);
    await peer.send({ jsonrpc: "2.0", id: n, method, params });
    return peer.next((m) => m.id === n && !("method" in m));
  };
  const open = async (method: string, params: Record<string, unknown>) => {
    const n = id++;
    methods.set(n, method);
    await peer.send({ jsonrpc: "2.0", id: n, method, params });
    return n;
  };
  return { peer, methods, request, open };
}

describe("served tasks extension (raw 2026-07-28 client)", () => {
  test.skipIf(sharedMissing)(`${NEEDS_SHARED} discover, create, poll, complete, isError, failure, cancel — all valid`, async () => {
    const { server, gates, nextCall, table } = world();
    const { peer, methods, request } = await recordingRaw(server);

    const discover = await request("server/discover", { _meta: meta() });
    expect(discover.result.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect(discover.result.capabilities.tasks).toBeUndefined();

    // Declared: the optional tool becomes a task; the handle is flat, with the extension's field names.
    const created = await request("tools/call", { _meta: meta(), name: "slow-optional", arguments: {} });
    expect(created.result).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 20 });
    const taskId = created.result.taskId as string;
    expect((await request("tasks/get", { _meta: meta(), taskId })).result).toMatchObject({
      resultType: "complete",
      taskId,
      status: "working",
    });
    await nextCall();
    gates[0]!.resolve({ content: [{ type: "text", text: "done" }] });
    await settled(table, taskId);
    const done = await request("tasks/get", { _meta: meta(), taskId });
    expect(done.result).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "done" }] } });

    // A tool error is a completed task (failed is for JSON-RPC errors), unlike the 2025-11-25 view.
    const e1 = (await request("tools/call", { _meta: meta(), name: "slow-optional", arguments: {} })).result.taskId;
    await nextCall();
    gates[1]!.resolve({ content: [{ type: "text", text: "nope" }], isError: true });
    await settled(table, e1);
    expect((await request("tasks/get", { _meta: meta(), taskId: e1 })).result).toMatchObject({
      status: "completed",
      result: { isError: true },
    });

    const e2 = (await request("tools/call", { _meta: meta(), name: "slow-optional", arguments: {} })).result.taskId;
    await nextCall();
    gates[2]!.reject(new McpError(-32603, "backend exploded"));
    await settled(table, e2);
    expect((await request("tasks/get", { _meta: meta(), taskId: e2 })).result).toMatchObject({
      status: "failed",
      error: { code: -32603, message: "backend exploded" },
    });

    // Cancel: acknowledged with {}, the run's signal aborts, the status is cancelled; again on a terminal task: still {}.
    const c = (await request("tools/call", { _meta: meta(), name: "slow-optional", arguments: {} })).result.taskId;
    await nextCall();
    expect((await request("tasks/cancel", { _meta: meta(), taskId: c })).result).toMatchObject({ resultType: "complete" });
    expect(gates[3]!.signal.aborted).toBe(true);
    expect((await request("tasks/get", { _meta: meta(), taskId: c })).result.status).toBe("cancelled");
    expect((await request("tasks/cancel", { _meta: meta(), taskId: taskId })).error).toBeUndefined();
    // update: our tasks never ask for input, so every key is "not outstanding" and ignored.
    expect((await request("tasks/update", { _meta: meta(), taskId, inputResponses: { k: { action: "decline" } } })).result).toMatchObject({
      resultType: "complete",
    });

    expect((await request("tasks/get", { _meta: meta(), taskId: "no-such-task" })).error).toMatchObject({ code: -32602 });
    // 2025-11-25's tasks/result and tasks/list are not in the extension.
    expect((await request("tasks/list", { _meta: meta() })).error).toMatchObject({ code: -32601 });
    expect((await request("tasks/result", { _meta: meta(), taskId })).error).toMatchObject({ code: -32601 });
    expectValid(peer, methods);
  });

  test.skipIf(sharedMissing)(
    `${NEEDS_SHARED} without the extension in _meta: plain results, -32021 for a task-only tool and for tasks/*`,
    async () => {
      const { server, gates, nextCall } = world();
      const { peer, methods, request } = await recordingRaw(server);
      const pending = request("tools/call", { _meta: meta({}), name: "slow-optional", arguments: {} });
      await nextCall();
      gates[0]!.resolve({ content: [{ type: "text", text: "sync" }] });
      expect((await pending).result).toMatchObject({ resultType: "complete", content: [{ text: "sync" }] });
      const required = await request("tools/call", { _meta: meta({}), name: "slow-required", arguments: {} });
      expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
      expect((await request("tasks/get", { _meta: meta({}), taskId: "x" })).error).toMatchObject({ code: -32021 });
      // A forbidden tool is never a task, declared or not.
      const forbidden = request("tools/call", { _meta: meta(), name: "slow-forbidden", arguments: {} });
      await nextCall();
      gates[1]!.resolve({ content: [] });
      expect((await forbidden).result.resultType).toBe("complete");
      expectValid(peer, methods);
    },
  );

  test("tasks off: nothing advertised, the call runs synchronously, tasks/get is -32601", async () => {
    const { server, gates, nextCall } = world({ tasks: false });
    const { request } = await recordingRaw(server);
    expect((await request("server/discover", { _meta: meta() })).result.capabilities.extensions).toBeUndefined();
    const pending = request("tools/call", { _meta: meta(), name: "slow-required", arguments: {} });
    await nextCall();
    gates[0]!.resolve({ content: [] });
    expect((await pending).result.resultType).toBe("complete");
    expect((await request("tasks/get", { _meta: meta(), taskId: "x" })).error).toMatchObject({ code: -32601 });
  });

  test.skipIf(sharedMissing)(
    `${NEEDS_SHARED} subscriptions/listen with taskIds: own tasks acknowledged, notifications/tasks carry the full state`,
    async () => {
      const { server, gates, nextCall } = world();
      const { peer, methods, request, open } = await recordingRaw(server);
      const taskId = (await request("tools/call", { _meta: meta(), name: "slow-optional", arguments: {} })).result.taskId;
      expect((await request("subscriptions/listen", { _meta: meta({}), notifications: { taskIds: [taskId] } })).error).toMatchObject({
        code: -32021,
      });
      const listen = await open("subscriptions/listen", { _meta: meta(), notifications: { taskIds: [taskId, "someone-elses"] } });
      const ack = await peer.next(
        (m) => m.method === "notifications/subscriptions/acknowledged" && m.params._meta[STATELESS_META.subscriptionId] === listen,
      );
      expect(ack.params.notifications).toEqual({ taskIds: [taskId] });
      // The state at once, then each change.
      const first = await peer.next((m) => m.method === "notifications/tasks");
      expect(first.params).toMatchObject({ taskId, status: "working", _meta: { [STATELESS_META.subscriptionId]: listen } });
      await nextCall();
      gates[0]!.resolve({ content: [{ type: "text", text: "pushed" }] });
      const pushed = await peer.next((m) => m.method === "notifications/tasks" && m.params.status === "completed");
      expect(pushed.params.result).toEqual({ content: [{ type: "text", text: "pushed" }] });
      expectValid(peer, methods);
    },
  );
});

describe("agentd's client against the served extension", () => {
  /** The server's answers as they are sent, for a test to wait on one. */
  let answered: ((m: Record<string, any>) => void)[] = [];
  const serverSent = (pred: (m: Record<string, any>) => boolean) =>
    new Promise<void>((resolve) => answered.push((m) => pred(m) && resolve()));

  async function client(server: McpServer, tasks: boolean) {
    const [a, b] = MemoryTransport.createPair();
    answered = [];
    const send = b.send.bind(b);
    b.send = (message, options) => {
      for (const w of answered) w(message as Record<string, any>);
      return send(message, options);
    };
    await server.connect(b);
    const c = new McpClient({ name: "agentd", version: "0" }, { versionNegotiation: "auto", capabilities: { tasks } });
    closers.push(() => c.close());
    await c.connect(a);
    return c;
  }

  test("tasks on: a task-only tool is offered and called; the client polls tasks/get and returns the tool's result", async () => {
    const { server, gates, nextCall, table } = world();
    const c = await client(server, true);
    expect(c.protocolVersion).toBe(REV);
    expect((await c.listTools()).map((t) => t.name)).toContain("slow-required");
    const call = c.callTool("slow-required", {});
    await nextCall();
    gates[0]!.resolve({ content: [{ type: "text", text: "via task" }] });
    expect(await call).toMatchObject({ content: [{ type: "text", text: "via task" }] });
    expect(table.list(undefined, LOCAL).tasks.map((t) => t.status)).toEqual(["completed"]);
  });

  test("a failed task's JSON-RPC error is thrown as such; aborting the call sends tasks/cancel", async () => {
    const { server, gates, nextCall, table } = world();
    const c = await client(server, true);
    const failing = c.callTool("slow-optional", {});
    await nextCall();
    gates[0]!.reject(new McpError(-32603, "no backend"));
    await expect(failing).rejects.toMatchObject({ code: -32603, message: "no backend" });
    const abort = new AbortController();
    // Aborted once the client follows the task (a tasks/get answered): it sends tasks/cancel.
    const polling = serverSent((m) => m.result?.resultType === "complete" && m.result?.status === "working");
    const doomed = c.callTool("slow-optional", {}, { signal: abort.signal });
    await polling;
    abort.abort();
    await expect(doomed).rejects.toThrow();
    await c.close();
    expect(gates[1]!.signal.aborted).toBe(true);
    expect(table.list(undefined, LOCAL).tasks.map((t) => t.status)).toEqual(["failed", "cancelled"]);
  });

  test("tasks off: the extension is not declared, so the server answers synchronously", async () => {
    const { server, gates, nextCall } = world();
    const c = await client(server, false);
    const call = c.callTool("slow-optional", {});
    await nextCall();
    gates[0]!.resolve({ content: [{ type: "text", text: "plain" }] });
    expect(await call).toMatchObject({ content: [{ type: "text", text: "plain" }] });
  });
});
