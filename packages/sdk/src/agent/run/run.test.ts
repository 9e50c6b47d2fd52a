/** The run's state machine: legal moves recorded (timestamped, one log record each), illegal ones refused. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Glob } from "bun";
import { memoryLogger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import { mintRunId, runIdOr } from "../../loop/run-id.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgent } from "../create-agent.ts";
import { ActiveRun, outcomeOf, type Run } from "./run.ts";
import { Runs } from "./runs.ts";

const make = (logger = memoryLogger(), now = () => 1000) => new ActiveRun({ id: "run-1", origin: { kind: "direct" }, logger, now });
const codeOf = (f: () => void) => {
  try {
    f();
    return "ok";
  } catch (e) {
    return AgentdError.isInstance(e) ? e.code : String(e);
  }
};

describe("a run's state", () => {
  test("starting → running → waiting → running → finished, each move timestamped and logged once", () => {
    const logger = memoryLogger("debug");
    let t = 1000;
    const run = make(logger, () => t);
    expect(run.state).toBe("starting");
    t = 1001;
    run.transition("running");
    t = 1002;
    run.transition("waiting");
    t = 1003;
    run.transition("running");
    t = 1004;
    run.transition("finished", { status: "ok" });
    expect(run.transitions.map((x) => [x.from, x.to, x.at])).toEqual([
      ["starting", "running", 1001],
      ["running", "waiting", 1002],
      ["waiting", "running", 1003],
      ["running", "finished", 1004],
    ]);
    expect(run.outcome).toEqual({ status: "ok" });
    expect(logger.records.filter((r) => r.event === "run.state").map((r) => r.to)).toEqual(["running", "waiting", "running", "finished"]);
  });

  test("illegal moves are refused and leave the state as it was", () => {
    const run = make();
    expect(codeOf(() => run.transition("waiting"))).toBe("E_USAGE"); // not running yet
    expect(codeOf(() => run.transition("finished"))).toBe("E_USAGE"); // finishing needs an outcome
    expect(codeOf(() => run.transition("running", { status: "ok" }))).toBe("E_USAGE"); // an outcome only with finishing
    expect(run.state).toBe("starting");
    run.transition("finished", { status: "failed", code: "E_UPSTREAM" });
    for (const to of ["starting", "running", "waiting", "finished"] as const)
      expect(codeOf(() => run.transition(to, to === "finished" ? { status: "ok" } : undefined))).toBe("E_USAGE");
    expect(run.transitions).toHaveLength(1);
    expect(run.outcome).toEqual({ status: "failed", code: "E_UPSTREAM" });
  });

  test("a question to a person holds the run waiting until its answer (overlapping questions: until the last)", async () => {
    let answer!: (v: { action: "accept" }) => void;
    const asked = new Promise<{ action: "accept" }>((r) => (answer = r));
    const run = new ActiveRun({
      id: "run-ask",
      origin: { kind: "a2a" },
      logger: memoryLogger(),
      askOperator: () => asked,
    });
    run.transition("running");
    const pending = run.askOperator!({ server: "s", message: "?", requestedSchema: {} }, run.signal);
    const other = run.waitFor(() => Promise.resolve(1));
    expect(run.state).toBe("waiting");
    await other;
    expect(run.state).toBe("waiting");
    answer({ action: "accept" });
    await pending;
    expect(run.state).toBe("running");
  });

  test("the caller's signal aborts the run; finishing lets it go and reports the run's sampling", () => {
    const caller = new AbortController();
    const run = new ActiveRun({ id: "run-2", origin: { kind: "direct" }, signal: caller.signal, logger: memoryLogger() });
    run.sampling.requests = 1;
    run.sampling.usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
    caller.abort("stop");
    expect(run.signal.aborted).toBe(true);
    expect(run.finish(outcomeOf(new AgentdError("E_ABORTED", "stop")))).toEqual({
      requests: 1,
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    });
    expect(run.outcome?.status).toBe("aborted");
  });
});

describe("the runs in flight", () => {
  test("one table: found by id, the newer of two under one id answers, gone when ended", () => {
    const runs = new Runs();
    const a = runs.begin({ id: "same", origin: { kind: "direct" }, logger: memoryLogger() });
    const b = runs.begin({ id: "same", origin: { kind: "direct" }, logger: memoryLogger() });
    expect(runs.size).toBe(2);
    expect(runs.get("same")).toBe(b);
    runs.end(b);
    expect(runs.get("same")).toBe(a);
    runs.end(a);
    expect(runs.get("same")).toBeUndefined();
    expect(runs.size).toBe(0);
  });

  test("agent.run makes one Run: the caller's id honoured, onStart sees it, it finishes ok and leaves the table", async () => {
    const agent = createAgent({ model: scriptedModel([reply("done")]) });
    const seen: Run[] = [];
    await agent.run("go", { runId: "mine", onStart: (r) => void seen.push(r) });
    expect(seen.map((r) => [r.id, r.origin.kind])).toEqual([["mine", "direct"]]);
    expect(seen[0]!.state).toBe("finished");
    expect(seen[0]!.transitions.map((t) => t.to)).toEqual(["running", "finished"]);
    expect(agent.runIds()).toEqual([]);
    await agent.close();
  });
});

describe("run ids", () => {
  test("a caller's id is honoured; none (or empty) gets a fresh run-<uuid>", () => {
    expect(runIdOr("given")).toBe("given");
    expect(runIdOr("")).toMatch(/^run-[0-9a-f-]{36}$/);
    expect(mintRunId()).not.toBe(mintRunId());
  });

  test("a run id is minted in one production file only (loop/run-id.ts)", () => {
    const src = resolve(import.meta.dir, "../..");
    const minting = [...new Glob("**/*.ts").scanSync(src)]
      .filter((f) => !f.endsWith(".test.ts") && !f.includes("__fixtures__"))
      .filter((f) => /`(run|served)-\$\{crypto\.randomUUID\(\)/.test(readFileSync(`${src}/${f}`, "utf8")));
    expect(minting).toEqual(["loop/run-id.ts"]);
  });
});
