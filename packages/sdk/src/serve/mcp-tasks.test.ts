import { describe, expect, test } from "bun:test";
import { McpError } from "../wire/errors.ts";
import type { CallToolResult } from "../wire/index.ts";
import type { RequestContext } from "../mcp/protocol/types.ts";
import type { TaskCall } from "../mcp/server/tasks.ts";
import { McpTaskTable } from "./mcp-tasks.ts";
import { LOCAL_PRINCIPAL, resolvePrincipal } from "./principal.ts";

const ctxOf = (principal?: string) => ({ authInfo: principal ? { scheme: "bearer", principal } : undefined }) as unknown as RequestContext;
const alice = ctxOf("alice");
const bob = ctxOf("bob");

/** A table keyed the way the served agent keys it, and a call whose outcome a test decides. */
function setup(options: Partial<ConstructorParameters<typeof McpTaskTable>[0]> = {}) {
  const notified: Record<string, unknown>[] = [];
  const table = new McpTaskTable({ ownerOf: (ctx) => resolvePrincipal(ctx.authInfo, new Set()).id, ...options });
  const call = (ctx: RequestContext, ttl?: number) => {
    let settle!: { resolve: (r: CallToolResult) => void; reject: (e: unknown) => void };
    let signal!: AbortSignal;
    const promise = new Promise<CallToolResult>((resolve, reject) => (settle = { resolve, reject }));
    const c: TaskCall = {
      tool: "agent.run",
      ctx,
      ttl,
      run: (s) => ((signal = s), promise),
      notify: async (_m, p) => void notified.push(p),
    };
    const view = table.create(c);
    return { view, settle, signal: () => signal, promise };
  };
  return { table, call, notified };
}

describe("McpTaskTable: MCP tasks over agentd's work", () => {
  test("a task is its principal's: another principal gets -32602 and does not list it", async () => {
    const { table, call } = setup();
    const a = call(alice);
    expect(table.get(a.view.taskId, alice).status).toBe("working");
    expect(() => table.get(a.view.taskId, bob)).toThrow(expect.objectContaining({ code: -32602 }));
    expect(() => table.cancel(a.view.taskId, bob)).toThrow(expect.objectContaining({ code: -32602 }));
    await expect(table.result(a.view.taskId, bob)).rejects.toMatchObject({ code: -32602 });
    expect(table.list(undefined, bob).tasks).toEqual([]);
    expect(table.list(undefined, alice).tasks.map((t) => t.taskId)).toEqual([a.view.taskId]);
    expect(table.list(undefined, ctxOf()).tasks).toEqual([]);
    expect(resolvePrincipal(undefined, new Set()).id).toBe(LOCAL_PRINCIPAL);
  });

  test("ids are 128 random bits, distinct", () => {
    const { call } = setup();
    const ids = new Set(Array.from({ length: 200 }, () => call(alice).view.taskId));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(Buffer.from(id, "base64url").length).toBe(16);
  });

  test("a tool result with isError is a failed task; tasks/result returns it with related-task _meta", async () => {
    const { table, call, notified } = setup();
    const a = call(alice);
    a.settle.resolve({ content: [{ type: "text", text: "no" }], isError: true });
    const result = await table.result(a.view.taskId, alice);
    expect(result).toMatchObject({ isError: true, _meta: { "io.modelcontextprotocol/related-task": { taskId: a.view.taskId } } });
    expect(table.get(a.view.taskId, alice).status).toBe("failed");
    expect(notified.at(-1)).toMatchObject({ taskId: a.view.taskId, status: "failed" });
  });

  test("a protocol error of the call is what tasks/result answers", async () => {
    const { table, call } = setup();
    const a = call(alice);
    a.settle.reject(new McpError(-32602, "bad things"));
    await expect(table.result(a.view.taskId, alice)).rejects.toMatchObject({ code: -32602, message: "bad things" });
    expect(table.get(a.view.taskId, alice)).toMatchObject({ status: "failed", statusMessage: "bad things" });
  });

  test("cancel: aborts the work, is sticky, and a terminal task cannot be cancelled (-32602)", async () => {
    const { table, call } = setup();
    const a = call(alice);
    expect(table.cancel(a.view.taskId, alice).status).toBe("cancelled");
    expect(a.signal().aborted).toBe(true);
    a.settle.resolve({ content: [{ type: "text", text: "late" }] });
    await a.promise;
    expect(table.get(a.view.taskId, alice).status).toBe("cancelled");
    expect(() => table.cancel(a.view.taskId, alice)).toThrow(expect.objectContaining({ code: -32602 }));
    await expect(table.result(a.view.taskId, alice)).rejects.toMatchObject({ code: -32602 });
  });

  test("ttl: the requested one, capped; a terminal task past it is forgotten", async () => {
    const { table, call } = setup({ maxTtlMs: 50_000, defaultTtlMs: 1234 });
    expect(call(alice, 10_000).view.ttl).toBe(10_000);
    expect(call(alice, 999_999).view.ttl).toBe(50_000);
    expect(call(alice).view.ttl).toBe(1234);
    const gone = call(alice, 0);
    gone.settle.resolve({ content: [] });
    await table.result(gone.view.taskId, alice).catch(() => {});
    expect(() => table.get(gone.view.taskId, alice)).toThrow(expect.objectContaining({ code: -32602 }));
  });

  test("list pages with an opaque cursor; a bad cursor is -32602", () => {
    const { table, call } = setup({ pageSize: 2 });
    const ids = Array.from({ length: 5 }, () => call(alice).view.taskId);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = table.list(cursor, alice);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(() => table.list("nope", alice)).toThrow(expect.objectContaining({ code: -32602 }));
  });
});

describe("tool-level negotiation (taskMode)", () => {
  const tool = (taskSupport?: "optional" | "required" | "forbidden") =>
    ({ name: "t", inputSchema: { type: "object" }, execution: taskSupport ? { taskSupport } : undefined }) as const;
  test("forbidden or absent refuses a task; required refuses a plain call; optional takes either", async () => {
    const { taskMode } = await import("../mcp/server/tasks.ts");
    expect(() => taskMode(tool(), true)).toThrow(expect.objectContaining({ code: -32601 }));
    expect(() => taskMode(tool("forbidden"), true)).toThrow(expect.objectContaining({ code: -32601 }));
    expect(() => taskMode(tool("required"), false)).toThrow(expect.objectContaining({ code: -32601 }));
    expect(taskMode(tool(), false)).toBe("plain");
    expect(taskMode(tool("optional"), true)).toBe("task");
    expect(taskMode(tool("optional"), false)).toBe("plain");
    expect(taskMode(tool("required"), true)).toBe("task");
  });
});
