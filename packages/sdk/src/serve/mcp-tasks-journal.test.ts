import { describe, expect, test } from "bun:test";
import type { CallToolResult } from "../wire/index.ts";
import type { RequestContext } from "../mcp/protocol/types.ts";
import { McpTaskTable } from "./mcp-tasks.ts";
import { resolvePrincipal } from "./principal.ts";
import type { ServedTaskJournal, ServedTaskRecord } from "./served-task-journal.ts";

const ctxOf = (principal: string) => ({ authInfo: { scheme: "bearer", principal } }) as unknown as RequestContext;
const alice = ctxOf("alice");
const bob = ctxOf("bob");

/** A journal keeping what the table notes, as the checkpoint does. */
function journal(): ServedTaskJournal & { records: Map<string, ServedTaskRecord> } {
  const records = new Map<string, ServedTaskRecord>();
  return { records, started: (r) => void records.set(r.taskId, r), ended: (id) => void records.delete(id) };
}

function table(j: ServedTaskJournal, rerun?: (r: ServedTaskRecord, signal: AbortSignal) => Promise<CallToolResult>) {
  return new McpTaskTable({
    ownerOf: (ctx) => resolvePrincipal(ctx.authInfo, new Set()).id,
    journal: j,
    retain: (tool, args) =>
      tool === "agent.run"
        ? { args: { ...args, runId: (args.runId as string) ?? "run-fixed" }, runId: (args.runId as string) ?? "run-fixed" }
        : undefined,
    rerun,
  });
}

describe("McpTaskTable with a journal: served tasks outlive a restart", () => {
  test("a task is noted with its retained request while working and forgotten when it ends; its run gets the retained arguments", async () => {
    const j = journal();
    const t = table(j);
    let ranWith: Record<string, unknown> | undefined;
    let finish!: (r: CallToolResult) => void;
    const view = t.create({
      tool: "agent.run",
      ctx: alice,
      args: { instruction: "x" },
      ttl: 5000,
      run: (_s, args) => ((ranWith = args), new Promise((r) => (finish = r))),
      notify: async () => {},
    });
    expect(ranWith).toEqual({ instruction: "x", runId: "run-fixed" });
    expect(j.records.get(view.taskId)).toEqual({
      taskId: view.taskId,
      owner: "bearer:alice",
      auth: { principal: "alice", scheme: "bearer" },
      tool: "agent.run",
      args: { instruction: "x", runId: "run-fixed" },
      runId: "run-fixed",
      ttl: 5000,
      createdAt: view.createdAt,
    });
    finish({ content: [{ type: "text", text: "done" }] });
    await t.result(view.taskId, alice);
    expect(j.records.size).toBe(0);
    // A tool whose tasks are not retained is never noted.
    t.create({ tool: "subagent.spawn", ctx: alice, args: {}, run: () => new Promise(() => {}), notify: async () => {} });
    expect(j.records.size).toBe(0);
  });

  test("tasks stopped by the server closing stay noted", () => {
    const j = journal();
    const t = table(j);
    const view = t.create({
      tool: "agent.run",
      ctx: alice,
      args: {},
      run: (s) => new Promise((_r, reject) => s.addEventListener("abort", () => reject(new Error("closing")))),
      notify: async () => {},
    });
    t.close();
    expect([...j.records.keys()]).toEqual([view.taskId]);
  });

  test("restored tasks keep their id and owner, re-run their request, and answer only their principal", async () => {
    const j = journal();
    const record: ServedTaskRecord = {
      taskId: "T1",
      owner: "bearer:alice",
      auth: { principal: "alice", scheme: "bearer" },
      tool: "agent.run",
      args: { instruction: "x", runId: "run-7" },
      runId: "run-7",
      ttl: 60_000,
      createdAt: new Date().toISOString(),
    };
    let rerunOf: ServedTaskRecord | undefined;
    let finish!: (r: CallToolResult) => void;
    const t = table(j, (r) => ((rerunOf = r), new Promise((res) => (finish = res))));
    expect(t.restore([record])).toBe(1);
    expect(rerunOf).toEqual(record);
    expect(t.get("T1", alice)).toMatchObject({ taskId: "T1", status: "working", createdAt: record.createdAt, ttl: 60_000 });
    expect(() => t.get("T1", bob)).toThrow(expect.objectContaining({ code: -32602 }));
    expect(t.list(undefined, bob).tasks).toEqual([]);
    expect(j.records.has("T1")).toBe(true);
    finish({ content: [{ type: "text", text: "again" }] });
    expect(await t.result("T1", alice)).toMatchObject({ content: [{ type: "text", text: "again" }] });
    expect(t.get("T1", alice).status).toBe("completed");
    expect(j.records.size).toBe(0);
  });

  test("without a rerun hook nothing is restored", () => {
    const t = new McpTaskTable({ ownerOf: () => "local" });
    expect(
      t.restore([{ taskId: "T", owner: "local", tool: "agent.run", args: {}, runId: "r", ttl: null, createdAt: new Date().toISOString() }]),
    ).toBe(0);
    expect(() => t.get("T", alice)).toThrow(expect.objectContaining({ code: -32602 }));
  });
});
