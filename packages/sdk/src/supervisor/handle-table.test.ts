import { describe, expect, test } from "bun:test";
import { HandleTable, toTask, type SpawnPayload } from "./handle-table.ts";

const payload = (instruction = "do it"): SpawnPayload => ({
  instruction,
  seed: { items: [1, 2] },
  scopes: [{ allow: ["fs/*"] }],
  limits: { maxTokens: 1000 },
  deadlineAt: 1_700_000_060_000,
  runId: "run-1.sa-x",
  depth: 1,
});
const usage = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });
const totals = (n: number) => ({ usage: usage(n), turns: 1, toolCalls: 0 });

describe("handle table", () => {
  test("a handle goes working → completed, with timestamps, and listeners see the finishing change once", () => {
    let now = 1_700_000_000_000;
    const table = new HandleTable({ now: () => now });
    const seen: Array<[string, boolean]> = [];
    table.onChange((r, finished) => seen.push([r.status, finished]));
    const h = table.create(payload(), { owner: "run-1" });
    expect(h).toMatchObject({ status: "working", attempts: 0, owner: "run-1", createdAt: "2023-11-14T22:13:20.000Z", ttl: 3_600_000 });
    now += 1000;
    table.update(h.id, { usage: usage(40), turns: 2, attempts: 1 });
    expect(table.get(h.id)).toMatchObject({ usage: usage(40), turns: 2, lastUpdatedAt: "2023-11-14T22:13:21.000Z" });
    expect(table.live).toBe(1);
    table.complete(h.id, { text: "done", stopReason: "final" }, totals(50));
    table.fail(h.id, { reason: "crashed", code: "E_SUPERVISOR", message: "late" }, totals(99));
    const done = table.get(h.id);
    expect(done).toMatchObject({ status: "completed", result: { text: "done" }, usage: usage(50) });
    expect(done?.error).toBeUndefined();
    expect(table.live).toBe(0);
    expect(seen).toEqual([
      ["working", false],
      ["working", false],
      ["completed", true],
    ]);
  });

  test("a cancel failure makes the handle cancelled; other failures make it failed", () => {
    const table = new HandleTable();
    const a = table.create(payload());
    const b = table.create(payload());
    table.fail(a.id, { reason: "cancelled", code: "E_ABORTED", message: "stop" }, totals(1));
    table.fail(b.id, { reason: "limit-exceeded", code: "E_BUDGET_TOKENS", message: "over", stopReason: "max-tokens" }, totals(2000));
    expect(table.get(a.id)?.status).toBe("cancelled");
    expect(table.get(b.id)).toMatchObject({ status: "failed", error: { reason: "limit-exceeded", code: "E_BUDGET_TOKENS" } });
  });

  test("records handed out are copies", () => {
    const table = new HandleTable();
    const h = table.create(payload());
    h.status = "completed";
    (table.get(h.id) as { payload: SpawnPayload }).payload.instruction = "changed";
    expect(table.get(h.id)).toMatchObject({ status: "working", payload: { instruction: "do it" } });
  });

  test("watch resolves when the handle finishes, at once when it already has, and rejects on abort", async () => {
    const table = new HandleTable();
    const h = table.create(payload());
    const waiting = table.watch(h.id);
    table.update(h.id, { turns: 1 });
    table.complete(h.id, { text: "ok", stopReason: "final" }, totals(5));
    expect((await waiting)?.status).toBe("completed");
    expect((await table.watch(h.id))?.result?.text).toBe("ok");
    expect(await table.watch("nope")).toBeUndefined();
    const other = table.create(payload());
    const controller = new AbortController();
    const aborted = table.watch(other.id, controller.signal).catch((e) => e);
    controller.abort(new Error("gave up"));
    expect(((await aborted) as Error).message).toBe("gave up");
  });

  test("finished handles expire after their ttl; working ones never do", () => {
    let now = 0;
    const table = new HandleTable({ ttlMs: 1000, now: () => now });
    const done = table.create(payload());
    const running = table.create(payload());
    table.complete(done.id, { stopReason: "final" }, totals(1));
    now = 999;
    expect(table.get(done.id)).toBeDefined();
    now = 5000;
    expect(table.get(done.id)).toBeUndefined();
    expect(table.get(running.id)?.status).toBe("working");
    expect(table.list().map((r) => r.id)).toEqual([running.id]);
  });

  test("list filters by owner and status; usage sums per owner", () => {
    const table = new HandleTable();
    const a = table.create(payload(), { owner: "r1" });
    table.create(payload(), { owner: "r2" });
    table.update(a.id, { usage: usage(10) });
    expect(table.list({ owner: "r1" }).map((r) => r.id)).toEqual([a.id]);
    expect(table.list({ status: "completed" })).toEqual([]);
    expect(table.usage("r1")).toEqual(usage(10));
    expect(table.usage("r2")).toEqual(usage(0));
  });

  test("a snapshot is plain JSON of handles and payloads, and a table rebuilt from it has the same handles", () => {
    const table = new HandleTable();
    const a = table.create(payload("first"), { owner: "r1" });
    const b = table.create(payload("second"));
    table.complete(b.id, { text: "done", stopReason: "final" }, totals(3));
    const json = JSON.stringify(table.snapshot());
    const parsed = JSON.parse(json);
    expect(parsed.version).toBe(1);
    expect(parsed.handles.map((h: { payload: SpawnPayload }) => h.payload.instruction)).toEqual(["first", "second"]);
    expect(json).not.toMatch(/"pid"|"stdio"|"messages"/);
    const live = table.snapshot({ liveOnly: true });
    expect(live.handles.map((h) => h.id)).toEqual([a.id]);
    const rebuilt = HandleTable.fromSnapshot(parsed);
    expect(rebuilt.list()).toEqual(table.list());
    expect(() => HandleTable.fromSnapshot({ ...parsed, version: 2 })).toThrow(/version 2/);
  });

  test("a handle translates into an MCP task", () => {
    const table = new HandleTable({ now: () => 0 });
    const h = table.create(payload());
    table.update(h.id, { statusMessage: "running (restart 1)" });
    expect(toTask(table.get(h.id)!)).toEqual({
      taskId: h.id,
      status: "working",
      statusMessage: "running (restart 1)",
      createdAt: "1970-01-01T00:00:00.000Z",
      lastUpdatedAt: "1970-01-01T00:00:00.000Z",
      ttl: 3_600_000,
    });
  });
});
