/**
 * The supervisor with real child processes (a scripted child without a model) and real pipes: answers,
 * async handles, bounded restart, limits enforced from both sides, refusals, cancel and shutdown of
 * subtrees with no process left behind.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import { descendants, killAll, survivors } from "./__fixtures__/process-tree.ts";
import { Supervisor, type SupervisorOptions } from "./supervisor.ts";

const CHILD = resolve(import.meta.dir, "__fixtures__/scripted-child.ts");
let sups: Supervisor[] = [];
let seen: number[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const s of sups) seen.push(...s.pids().flatMap((p) => [p, ...descendants(p)]));
  await Promise.all(sups.map((s) => s.shutdown()));
  killAll(seen);
  sups = [];
  seen = [];
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function supervisor(options: Partial<SupervisorOptions> = {}): Supervisor {
  const s = new Supervisor({
    model: {},
    command: { command: process.execPath, args: [CHILD], env: { AGENT_API_KEY: "sk-fixture-key" } },
    backoff: { initialDelayMs: 10, maxDelayMs: 50 },
    graceMs: 2_000,
    ...options,
  });
  sups.push(s);
  return s;
}
const tempDir = () => (dir = mkdtempSync(join(tmpdir(), "agentd-sup-")));

describe("supervisor: answers and handles", () => {
  test("run() starts a child process and returns its answer with its usage", async () => {
    const sup = supervisor();
    const done = await sup.run({ instruction: "echo:hi" }, { owner: "run-p" });
    expect(done.status).toBe("completed");
    expect(done.result?.text).toBe(`echo hi (attempt 1, run run-p.${done.id})`);
    expect(done).toMatchObject({ attempts: 1, turns: 1, usage: { totalTokens: 15 }, owner: "run-p", payload: { depth: 1 } });
    expect(await survivors(sup.pids())).toEqual([]);
  });

  test("start() returns a working handle at once; wait() resolves with the result; list() shows it", async () => {
    const sup = supervisor();
    const finished: string[] = [];
    sup.table.onChange((r, done) => done && finished.push(r.id));
    const h = sup.start({ instruction: "echo:later" });
    expect(h.status).toBe("working");
    expect(sup.list().map((r) => r.id)).toEqual([h.id]);
    const done = await sup.wait(h.id);
    expect(done?.result?.text).toStartWith("echo later");
    expect(finished).toEqual([h.id]);
    expect(await sup.wait("sa-unknown")).toBeUndefined();
  });

  test("wait() with a timeout returns the working record", async () => {
    const sup = supervisor();
    const h = sup.start({ instruction: "hang" });
    const r = await sup.wait(h.id, { timeoutMs: 50 });
    expect(r?.status).toBe("working");
    expect((await sup.cancel(h.id))?.status).toBe("cancelled");
  });

  test("a child's failure is reported with its code, not restarted", async () => {
    const sup = supervisor();
    const r = await sup.run({ instruction: "fail" });
    expect(r).toMatchObject({
      status: "failed",
      attempts: 1,
      error: { reason: "failed", code: "E_RUN_FAILED", message: "the model gave up" },
      usage: { totalTokens: 3 },
    });
  });

  test("start params: scope chain, reachable servers, capped limits, the model, and never the key", async () => {
    const sup = supervisor({
      model: { intelligence: "http://127.0.0.1:9/v1", dialect: "openai", name: "base-model", apiKeyEnv: "MY_KEY" },
      mcpServers: { fs: { command: "fs-server" }, web: { url: "http://127.0.0.1:9/mcp" }, files: { command: "x" } },
      scopes: [{ allow: ["fs/*", "web/*", "subagent.*"] }],
      limits: { maxTokens: 1000, maxTurns: 5, deadlineMs: 60_000 },
    });
    const r = await sup.run({
      instruction: "start-params",
      scope: { allow: ["fs/read_*"] },
      limits: { maxTokens: 5000, maxTurns: 2 },
      model: "small-model",
      seed: { a: 1 },
    });
    const { start, hasKey } = JSON.parse(r.result?.text as string);
    expect(hasKey).toBe(true);
    expect(JSON.stringify(start)).not.toContain("sk-fixture-key");
    expect(start.scopes).toEqual([{ allow: ["fs/*", "web/*", "subagent.*"] }, { allow: ["fs/read_*"] }]);
    expect(Object.keys(start.mcpServers)).toEqual(["fs"]);
    expect(start.limits.maxTokens).toBe(1000);
    expect(start.limits.maxTurns).toBe(2);
    expect(start.limits.deadlineMs).toBeLessThanOrEqual(60_000);
    expect(start.model).toEqual({ intelligence: "http://127.0.0.1:9/v1", dialect: "openai", name: "small-model", apiKeyEnv: "MY_KEY" });
    expect(start).toMatchObject({
      depth: 1,
      attempt: 1,
      seed: { a: 1 },
      subagents: { maxDepth: 2, maxChildren: 4, maxRestarts: 2, graceMs: 1000 },
    });
  });
});

describe("supervisor: bounded restart", () => {
  test("a child that crashes once is restarted with the same run id and succeeds; usage counts both attempts", async () => {
    const marker = join(tempDir(), "crashed-once");
    const sup = supervisor();
    const r = await sup.run({ instruction: `crash-once:${marker}` }, { owner: "run-r" });
    expect(r.status).toBe("completed");
    expect(r.attempts).toBe(2);
    expect(r.result?.text).toBe(`recovered (attempt 2, run run-r.${r.id})`);
    // The first attempt wrote its run id before crashing: a retry carries the same one.
    expect(readFileSync(marker, "utf8")).toBe(`run-r.${r.id}`);
    expect(r.usage.totalTokens).toBe(115);
  });

  test("a child that always crashes fails after the bound, with the reason", async () => {
    const sup = supervisor({ maxRestarts: 2 });
    const r = await sup.run({ instruction: "crash-always" });
    expect(r.status).toBe("failed");
    expect(r.attempts).toBe(3);
    expect(r.error).toMatchObject({ reason: "crashed", code: "E_SUPERVISOR" });
    expect(r.error?.message).toContain("crashed 3 time(s) (2 restart(s) allowed); last: exited with code 3 without an answer");
    expect(r.usage.totalTokens).toBe(21);
  });

  test("killed by a signal, or a broken control channel, counts as a crash", async () => {
    const sup = supervisor({ maxRestarts: 0 });
    const killed = await sup.run({ instruction: "kill-self" });
    expect(killed.error?.message).toContain("killed by signal SIGKILL");
    const broken = await sup.run({ instruction: "break-channel" });
    expect(broken.status).toBe("failed");
    expect(broken.error?.reason).toBe("crashed");
    expect(broken.error?.message).toMatch(/control channel|signal/);
    expect(await survivors(sup.pids())).toEqual([]);
  });

  test("a child that cannot be started at all fails with the reason", async () => {
    const sup = supervisor({ maxRestarts: 1, command: { command: "/nonexistent/agentd-binary", args: [] } });
    const r = await sup.run({ instruction: "echo:x" });
    expect(r).toMatchObject({ status: "failed", attempts: 2, error: { reason: "crashed" } });
    expect(r.error?.message).toContain("the child could not be started");
  });

  test("a restart gets what is left of the budget; a spent budget is not restarted", async () => {
    const marker = join(tempDir(), "m");
    const sup = supervisor();
    // The first attempt reports 100 tokens and crashes; 100 of 100 are spent: limit exceeded, no restart.
    const r = await sup.run({ instruction: `crash-once:${marker}`, limits: { maxTokens: 100 } });
    expect(r).toMatchObject({ status: "failed", attempts: 1, error: { reason: "limit-exceeded", code: "E_BUDGET_TOKENS" } });
  });
});

describe("supervisor: limits", () => {
  test("a child that trips its own token budget is reported limit-exceeded with its usage", async () => {
    const sup = supervisor();
    const r = await sup.run({ instruction: "budget-self:5000", limits: { maxTokens: 1000 } });
    expect(r).toMatchObject({
      status: "failed",
      error: { reason: "limit-exceeded", code: "E_BUDGET_TOKENS", stopReason: "max-tokens" },
      usage: { totalTokens: 5000 },
    });
  });

  test("a child that reports usage over its budget and goes on is stopped by the parent", async () => {
    const sup = supervisor();
    const r = await sup.run({ instruction: "over-budget:2500", limits: { maxTokens: 1000 } });
    expect(r).toMatchObject({
      status: "failed",
      error: { reason: "limit-exceeded", code: "E_BUDGET_TOKENS" },
      usage: { totalTokens: 2500 },
    });
    expect(await survivors(sup.pids())).toEqual([]);
  });

  test("a child past its deadline is stopped by the parent", async () => {
    const sup = supervisor({ graceMs: 600 });
    const r = await sup.run({ instruction: "stubborn", limits: { deadline: "200ms" } });
    expect(r).toMatchObject({ status: "failed", error: { reason: "limit-exceeded", code: "E_BUDGET_DEADLINE" } });
  });

  test("depth and fan-out past the maximum are refused with a clear E_SUPERVISOR line", async () => {
    const deep = supervisor({ depth: 2, maxDepth: 2 });
    const refusal = (() => {
      try {
        deep.start({ instruction: "echo:x" });
      } catch (e) {
        return e;
      }
    })();
    expect(AgentdError.isInstance(refusal) && refusal.code).toBe("E_SUPERVISOR");
    expect((refusal as Error).message).toContain("the maximum depth is 2 and this agent is at depth 2");

    const narrow = supervisor({ maxChildren: 1 });
    const first = narrow.start({ instruction: "hang" });
    expect(() => narrow.start({ instruction: "hang" })).toThrow("1 of at most 1 subagents are still running");
    expect(() => narrow.start({ instruction: "" })).toThrow(/1 of at most 1|instruction/);
    await narrow.cancel(first.id);
    expect(() => narrow.start({ instruction: "   " })).toThrow("invalid spawn request: instruction: instruction must not be empty");
  });
});

describe("supervisor: cancel and shutdown", () => {
  test("cancel stops a child over the control channel", async () => {
    const sup = supervisor();
    const h = sup.start({ instruction: "hang" });
    await waitFor(() => sup.pids().length === 1);
    const pid = sup.pids()[0] as number;
    const r = await sup.cancel(h.id, "not needed");
    expect(r).toMatchObject({ status: "cancelled", error: { reason: "cancelled", message: "not needed" } });
    expect(await survivors([pid])).toEqual([]);
  });

  test("a child that ignores cancel and SIGTERM is killed at the end of the grace", async () => {
    const sup = supervisor({ graceMs: 600 });
    const h = sup.start({ instruction: "stubborn" });
    await waitFor(() => sup.get(h.id)?.attempts === 1 && sup.pids().length === 1);
    const pid = sup.pids()[0] as number;
    const r = await sup.cancel(h.id);
    expect(r?.status).toBe("cancelled");
    expect(await survivors([pid])).toEqual([]);
  });

  test("cancelling a child cancels its subtree: no process survives", async () => {
    const sup = supervisor();
    const h = sup.start({ instruction: "tree" });
    await waitFor(() => (sup.get(h.id)?.usage.totalTokens ?? 0) > 0);
    const child = sup.pids()[0] as number;
    const tree = [child, ...descendants(child)];
    expect(tree.length).toBeGreaterThanOrEqual(2);
    const r = await sup.cancel(h.id);
    expect(r?.status).toBe("cancelled");
    expect(await survivors(tree)).toEqual([]);
  });

  test("shutdown stops every child and refuses new ones", async () => {
    const sup = supervisor();
    sup.start({ instruction: "hang" });
    sup.start({ instruction: "tree" });
    await waitFor(
      () => sup.list().every((r) => r.attempts === 1) && sup.pids().length === 2 && sup.pids().every((p) => descendants(p).length >= 0),
    );
    await waitFor(() => (sup.list()[1]?.usage.totalTokens ?? 0) > 0);
    const tree = sup.pids().flatMap((p) => [p, ...descendants(p)]);
    expect(tree.length).toBeGreaterThanOrEqual(3);
    await sup.shutdown();
    expect(sup.list().map((r) => r.status)).toEqual(["cancelled", "cancelled"]);
    expect(await survivors(tree)).toEqual([]);
    expect(() => sup.start({ instruction: "echo:x" })).toThrow("shutting down");
  });

  test("a snapshot holds handles and payloads, no processes", async () => {
    const sup = supervisor();
    const h = sup.start({ instruction: "hang", seed: { k: "v" } });
    const snap = JSON.parse(JSON.stringify(sup.snapshot({ liveOnly: true })));
    expect(snap.handles).toHaveLength(1);
    expect(snap.handles[0]).toMatchObject({ id: h.id, status: "working", payload: { instruction: "hang", seed: { k: "v" } } });
    expect(existsSync(CHILD)).toBe(true);
    await sup.cancel(h.id);
  });
});

/** Wait for a condition (events from child processes have no other hook here). */
async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
