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
