import { describe, expect, test } from "bun:test";
import { registerSecretValue } from "../secret-values.ts";
import { RunRegistry } from "./run-registry.ts";

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const finish = (r: RunRegistry, runId: string, text: string, owner?: string) => {
  r.start(runId, `do ${runId}`, owner);
  r.succeed(runId, { text, stopReason: "final", usage, turns: 1, toolCalls: 0 }, owner);
};

describe("RunRegistry history bounds", () => {
  test("keeps at most maxRuns finished runs, the oldest finished going first; a gone run is expired, not unknown", () => {
    const r = new RunRegistry({ maxRuns: 3 });
    for (let i = 1; i <= 5; i++) finish(r, `r${i}`, "ok");
    expect(["r1", "r2", "r3", "r4", "r5"].map((id) => r.has(id))).toEqual([false, false, true, true, true]);
    expect(r.expired("r1")).toBe(true);
    expect(r.expired("r9")).toBe(false);
    expect(r.status().runsSucceeded).toBe(5);
  });

  test("keeps at most maxBytes of finished runs: large answers push out the oldest", () => {
    const r = new RunRegistry({ maxRuns: 100, maxBytes: 2_500_000 });
    for (let i = 1; i <= 4; i++) finish(r, `big${i}`, "x".repeat(1_000_000));
    expect(["big1", "big2", "big3", "big4"].map((id) => r.has(id))).toEqual([false, false, true, true]);
    expect(r.expired("big2")).toBe(true);
  });

  test("running runs are never dropped, whatever the bounds", () => {
    const r = new RunRegistry({ maxRuns: 1, maxBytes: 1 });
    r.start("long", "keeps going");
    finish(r, "a", "x".repeat(10_000));
    finish(r, "b", "y");
    expect(r.get("long")?.status).toBe("running");
    expect(r.status().running).toEqual(["long"]);
  });
});

describe("RunRegistry per principal", () => {
  test("a run id names a run within its owner's runs only; status is per owner, or whole without one", () => {
    const r = new RunRegistry();
    finish(r, "job-1", "A's answer", "bearer:a");
    r.start("job-2", "B's work", "bearer:b");
    expect(r.get("job-1", "bearer:a")?.result?.text).toBe("A's answer");
    expect(r.get("job-1", "bearer:b")).toBeUndefined();
    expect(r.get("job-1")).toBeUndefined(); // the local principal's
    expect(r.status("bearer:b")).toMatchObject({ running: ["job-2"], runsStarted: 1, runsSucceeded: 0 });
    expect(r.status("bearer:a")).toMatchObject({ running: [], runsStarted: 1, runsSucceeded: 1 });
    expect(r.status()).toMatchObject({ running: ["job-2"], runsStarted: 2, runsSucceeded: 1 });
    expect(r.find("job-1")).toEqual([{ owner: "bearer:a", record: expect.objectContaining({ runId: "job-1" }) }]);
    expect(r.principals()).toEqual({ "bearer:a": { running: [], runsStarted: 1 }, "bearer:b": { running: ["job-2"], runsStarted: 1 } });
  });
});

describe("RunRegistry bounds per principal", () => {
  test("one principal's many runs never push out another's: the count is per principal", () => {
    const r = new RunRegistry();
    finish(r, "a-job", "A's answer", "bearer:a");
    for (let i = 0; i < 150; i++) finish(r, `b-${i}`, "ok", "bearer:b");
    expect(r.get("a-job", "bearer:a")?.result?.text).toBe("A's answer");
    expect(r.held("bearer:b").runs).toBe(100);
    expect(r.expired("b-0", "bearer:b")).toBe(true);
    expect(r.expired("a-job", "bearer:a")).toBe(false);
  });

  test("the total byte bound takes from whoever holds the most, never from a principal within its share", () => {
    const r = new RunRegistry({ maxBytes: 3_000_000, maxTotalBytes: 4_000_000 });
    finish(r, "a-small", "A's answer", "bearer:a");
    for (let i = 0; i < 3; i++) finish(r, `c-${i}`, "c".repeat(500_000), "bearer:c");
    for (let i = 0; i < 20; i++) finish(r, `b-${i}`, "b".repeat(500_000), "bearer:b");
    expect(r.get("a-small", "bearer:a")?.result?.text).toBe("A's answer");
    expect(r.held("bearer:c").runs).toBe(3);
    expect(r.held("bearer:b").bytes).toBeLessThanOrEqual(3_000_000);
    expect(r.held("bearer:a").bytes + r.held("bearer:b").bytes + r.held("bearer:c").bytes).toBeLessThanOrEqual(4_000_000);
    expect(r.expired("b-0", "bearer:b")).toBe(true);
  });

  test("an expired id is remembered as an id, per principal: another principal's flood does not make it forgotten", () => {
    const r = new RunRegistry({ maxRuns: 1 });
    finish(r, "a-1", "first", "bearer:a");
    finish(r, "a-2", "second", "bearer:a");
    expect(r.expired("a-1", "bearer:a")).toBe(true);
    for (let i = 0; i < 5000; i++) finish(r, `b-${i}`, "ok", "bearer:b");
    expect(r.expired("a-1", "bearer:a")).toBe(true);
    expect(r.held("bearer:b").expired).toBe(4096);
    expect(r.expired("a-1", "bearer:b")).toBe(false);
  });

  test("a very long run id is remembered by its digest, not its text", () => {
    const r = new RunRegistry({ maxRuns: 1 });
    const long = "L".repeat(100_000);
    finish(r, long, "first", "bearer:a");
    finish(r, "next", "second", "bearer:a");
    expect(r.expired(long, "bearer:a")).toBe(true);
    expect(r.expired(`${long}x`, "bearer:a")).toBe(false);
  });
});

test("an instruction holding a secret (a trigger's, expanded from ${VAR}) is kept masked", () => {
  registerSecretValue("instr-Secret-66Tq");
  const r = new RunRegistry();
  r.start("t1", "call the API with instr-Secret-66Tq please");
  expect(r.get("t1")?.instruction).toBe("call the API with [redacted] please");
});

test("a failed run keeps the turns and tool calls the loop counted, as its detail lists them", () => {
  const r = new RunRegistry();
  r.start("f1", "do f1");
  r.observe("f1", { type: "model-start", runId: "f1", turn: 1, messages: 2 });
  r.observe("f1", {
    type: "tool-call-start",
    runId: "f1",
    turn: 1,
    toolCallId: "c1",
    name: "s__t",
    qualifiedName: "s/t",
    argumentsSize: 2,
    arguments: {},
  });
  r.observe("f1", {
    type: "run-end",
    runId: "f1",
    usage,
    turns: 1,
    toolCalls: 1,
    stopReason: "deadline",
    durationMs: 5,
    error: "E_BUDGET_DEADLINE",
  });
  r.fail("f1", { code: "E_BUDGET_DEADLINE", message: "deadline" }, usage);
  const record = r.get("f1")!;
  expect(record.detail?.turns[0]?.toolCalls.length).toBe(1);
  expect([record.turns, record.toolCalls]).toEqual([1, 1]);
  expect(r.list().runs[0]?.toolCalls).toBe(1);
});

describe("a run that stops to wait for a decision", () => {
  const asked = {
    type: "approval-requested" as const,
    runId: "w1",
    turn: 1,
    toolCallId: "c1",
    name: "fs__delete",
    qualifiedName: "fs/delete",
    requestId: "apr-1",
    tool: "delete",
    rule: "approvals.rules[0]",
    digest: "d1",
  };
  const ended = (stopReason: "waiting" | "final", turns: number) =>
    ({ type: "run-end", runId: "w1", usage, turns, toolCalls: 1, stopReason, durationMs: 1 }) as const;

  test("shows waiting with its question, neither running nor finished; resumed, the same record goes on to its answer", () => {
    const r = new RunRegistry();
    r.start("w1", "clean up", undefined, { via: "trigger", trigger: "nightly" });
    r.observe("w1", asked);
    r.observe("w1", ended("waiting", 1));
    // The trigger's own end (its result says waiting) leaves it waiting.
    r.succeed("w1", { stopReason: "waiting", usage, turns: 1, toolCalls: 1 });
    expect(r.get("w1")).toMatchObject({ status: "waiting", turns: 1, approvals: [{ requestId: "apr-1", tool: "fs/delete" }] });
    expect(r.get("w1")?.approvals?.[0]?.decision).toBeUndefined();
    expect(r.get("w1")?.result).toBeUndefined();
    expect(r.status()).toMatchObject({ state: "idle", running: [], waiting: ["w1"], runsStarted: 1, runsSucceeded: 0 });
    expect(r.list({ status: "waiting" }).runs).toMatchObject([{ runId: "w1", status: "waiting", waitingOn: ["fs/delete"] }]);

    // Resumed with nobody waiting on it here: its record goes on, not started again.
    r.start("w1", "clean up", undefined, { via: "trigger", trigger: "nightly" });
    expect(r.get("w1")?.status).toBe("running");
    r.observe("w1", { ...asked, type: "approval-decided", decision: "approve", by: "bearer:ops", waitedMs: 5 } as never);
    r.observe("w1", ended("final", 2));
    r.succeed("w1", { text: "cleaned", stopReason: "final", usage, turns: 2, toolCalls: 1 });
    expect(r.get("w1")).toMatchObject({
      status: "succeeded",
      result: { text: "cleaned" },
      approvals: [{ decision: "approve", by: "bearer:ops" }],
    });
    expect(r.status()).toMatchObject({ running: [], waiting: [], runsStarted: 1, runsSucceeded: 1 });
  });

  test("a served caller's run resumed in this process: its resumed part's run-start makes it running again", () => {
    const r = new RunRegistry();
    r.start("w1", "clean up", "alice", { via: "mcp" });
    r.observe("w1", ended("waiting", 1), "alice");
    expect(r.get("w1", "alice")?.status).toBe("waiting");
    r.observe("w1", { type: "run-start", runId: "w1", provider: "p", model: "m", tools: 1, mode: "native" }, "alice");
    expect(r.get("w1", "alice")?.status).toBe("running");
  });
});
