/**
 * The fleet's run history in a store: two registries (two replicas) writing to one real store (the
 * directory backend behind the store's MCP server) list each other's finished runs and read their records;
 * a principal sees only its own; the bounds (count, bytes, age) hold in the store; an unreachable store
 * leaves each replica its own list and one warning.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger, nullLogger } from "../../log.ts";
import { McpClient } from "../../mcp/client/client.ts";
import { emptyUsage } from "../../model/language-model.ts";
import { agentRunTool } from "../../serve/agent-run-tool.ts";
import type { Principal } from "../../serve/principal.ts";
import { RunRegistry, type RunRecord } from "../../serve/run-registry.ts";
import type { ServedRunner } from "../../serve/served-mcp.ts";
import { AgentdError } from "../../wire/errors.ts";
import { listRuns, readRun } from "../../serve/shared-run-history.ts";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import { StoreClient } from "../../store/store-client.ts";
import { createStoreServer } from "../../store/store-server.ts";
import { MemoryTransport } from "../../transport/memory.ts";
import { DEFAULT_SHARED_RUN_HISTORY, MAX_STORED_RECORD_CHARS, StoreRunHistory, type SharedRunHistoryBounds } from "./run-history-store.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function storeOn(backend: DirectoryBackend): Promise<StoreClient> {
  const server = createStoreServer(backend);
  const [a, b] = MemoryTransport.createPair();
  await server.connect(b);
  const mcp = new McpClient({ name: "run-history-test", version: "0" });
  await mcp.connect(a);
  cleanups.push(async () => {
    await mcp.close();
    await server.close();
  });
  return new StoreClient(mcp);
}

async function fleet(bounds: Partial<SharedRunHistoryBounds> = {}, now: () => number = Date.now) {
  const dir = mkdtempSync(join(tmpdir(), "agentd-run-history-"));
  const backend = new DirectoryBackend(dir);
  cleanups.push(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const replica = async (name: string, clock: () => number) => {
    const store = await storeOn(backend);
    const shared = new StoreRunHistory(
      { store: async () => store, close: async () => {} },
      name,
      nullLogger,
      { ...DEFAULT_SHARED_RUN_HISTORY, ...bounds },
      clock,
    );
    return { shared, registry: new RunRegistry({ shared }) };
  };
  // Replica B keeps the real clock (the age tests put A's behind).
  const a = await replica("replica-a", now);
  const b = await replica("replica-b", Date.now);
  return { a, b, inspect: await storeOn(backend) };
}

const finished = (runId: string): RunRecord => {
  const r = new RunRegistry();
  finish(r, runId, "local");
  return r.get(runId, "local")!;
};

function finish(registry: RunRegistry, runId: string, owner: string, text = `answer of ${runId}`): void {
  registry.start(runId, `do ${runId}`, owner, { via: "mcp" });
  registry.observe(runId, { type: "model-start", runId, turn: 1, messages: 1 } as never, owner);
  registry.succeed(runId, { text, stopReason: "end", usage: { ...emptyUsage(), inputTokens: 7 }, turns: 1, toolCalls: 0 }, owner);
}

describe("agent.run whose waiting run another replica resumed", () => {
  test("the caller still connected here gets the answer the resumer recorded in the fleet's history; this replica records nothing", async () => {
    const { a, b } = await fleet();
    const alice: Principal = { id: "bearer:alice", role: "user" };
    // Replica A resumes the run and records it (as its desk resumer does); B's run then learns it was resumed there.
    const runner: ServedRunner = {
      run: async () => {
        finish(a.registry, "job-1", alice.id, "deleted /srv/old");
        throw new AgentdError("E_UPSTREAM", "run job-1 was resumed on another replica (replica-a)", {
          data: { resumedElsewhere: "replica-a" },
        });
      },
    };
    const run = agentRunTool({ runner, servedRuns: undefined, registry: b.registry, prompts: undefined, principalOf: () => alice });
    const r = await run({ instruction: "clean up", runId: "job-1" }, {
      signal: new AbortController().signal,
      sendProgress: async () => {},
    } as never);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ runId: "job-1", text: "deleted /srv/old" });
    // B's own record is gone (not failed): the fleet lists the run once, A's.
    expect(b.registry.get("job-1", alice.id)).toBeUndefined();
    await b.shared.idle();
    const page = await listRuns(b.registry, {}, alice.id);
    expect(page.runs.map((x) => [x.runId, x.replica, x.status])).toEqual([["job-1", "replica-a", "succeeded"]]);
  });
});

describe("the fleet's run history in a store", () => {
  test("a run finished on replica A is listed by B (with its replica) and its record reads the same", async () => {
    const { a, b } = await fleet();
    finish(a.registry, "r-1", "bearer:alice");
    await a.shared.idle();
    b.registry.start("r-2", "still running on B", "bearer:alice");
    const page = await listRuns(b.registry, {}, undefined);
    expect(page.runs.map((r) => [r.runId, r.principal, r.replica, r.status])).toEqual([
      ["r-2", "bearer:alice", "replica-b", "running"],
      ["r-1", "bearer:alice", "replica-a", "succeeded"],
    ]);
    const onB = await readRun(b.registry, "r-1", { id: "bearer:alice", operator: false });
    expect(onB?.record).toEqual(a.registry.get("r-1", "bearer:alice")!);
    expect(onB?.record.replica).toBe("replica-a");
    // An operator names no owner: the newest run with that id, whoever owns it.
    expect((await readRun(b.registry, "r-1", { id: "bearer:ops", operator: true }))?.owner).toBe("bearer:alice");
  });

  test("a principal lists and reads only its own runs from the store; an operator lists all", async () => {
    const { a, b } = await fleet();
    finish(a.registry, "alice-1", "bearer:alice");
    finish(a.registry, "bob-1", "bearer:bob");
    await a.shared.idle();
    expect((await listRuns(b.registry, {}, "bearer:bob")).runs.map((r) => r.runId)).toEqual(["bob-1"]);
    expect((await listRuns(b.registry, { principal: "bearer:alice" }, "bearer:bob")).runs).toEqual([]);
    expect(await readRun(b.registry, "alice-1", { id: "bearer:bob", operator: false })).toBeUndefined();
    expect(await readRun(b.registry, "alice-1", { id: "bearer:bob", operator: false }, "bearer:alice")).toBeUndefined();
    const all = await listRuns(b.registry, {}, undefined);
    expect(all.runs.map((r) => r.runId).sort()).toEqual(["alice-1", "bob-1"]);
  });

  test("pages of the merged list follow the cursor, newest first, without repeats", async () => {
    const { a, b } = await fleet();
    for (let i = 0; i < 5; i++) {
      finish(i % 2 ? a.registry : b.registry, `p-${i}`, "local");
      await Bun.sleep(2); // distinct start times: the order is the start order
    }
    await Promise.all([a.shared.idle(), b.shared.idle()]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listRuns(a.registry, { limit: 2, ...(cursor ? { cursor } : {}) }, "local");
      seen.push(...page.runs.map((r) => r.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["p-4", "p-3", "p-2", "p-1", "p-0"]);
  });

  test("the store keeps each principal's newest runs within the count and byte bounds, and deletes the rest", async () => {
    const { a, b, inspect } = await fleet({ maxRuns: 3 });
    for (let i = 0; i < 5; i++) finish(a.registry, `c-${i}`, "bearer:alice");
    finish(b.registry, "other", "bearer:bob");
    await Promise.all([a.shared.idle(), b.shared.idle()]);
    const alice = (await listRuns(b.registry, {}, "bearer:alice")).runs.map((r) => r.runId);
    expect(alice).toEqual(["c-4", "c-3", "c-2"]);
    // One record document per kept run: three of alice's, one of bob's.
    expect((await inspect.list("runs/record/")).length).toBe(4);

    const small = await fleet({ maxBytes: 6000 });
    finish(small.a.registry, "big-1", "local", "x".repeat(2500));
    finish(small.a.registry, "big-2", "local", "y".repeat(2500));
    finish(small.a.registry, "big-3", "local", "z".repeat(2500));
    await small.a.shared.idle();
    expect((await listRuns(small.b.registry, {}, "local")).runs.map((r) => r.runId)).toEqual(["big-3", "big-2"]);
  });

  test("runs older than maxAge are no longer listed, and a later write prunes them from the store", async () => {
    // Replica A's clock is two minutes behind: what it writes is already past B's 60 s bound.
    const behind = Date.now() - 120_000;
    const { a, b, inspect } = await fleet({ maxAgeMs: 60_000 }, () => behind);
    const old = new Date(behind).toISOString();
    a.shared.publish("local", { ...finished("old"), startedAt: old, endedAt: old });
    await a.shared.idle();
    expect((await inspect.list("runs/record/")).length).toBe(1);
    expect((await listRuns(b.registry, {}, "local")).runs).toEqual([]);
    finish(b.registry, "new", "local");
    await b.shared.idle();
    expect((await listRuns(b.registry, {}, "local")).runs.map((r) => r.runId)).toEqual(["new"]);
    expect((await inspect.list("runs/record/")).length).toBe(1);
  });

  test("an unreachable store: the list is this replica's own, and one warning is logged however often it is read", async () => {
    const logger = memoryLogger();
    const shared = new StoreRunHistory(
      {
        store: async () => {
          throw new Error("connect ECONNREFUSED 127.0.0.1:7700");
        },
        close: async () => {},
      },
      "replica-a",
      logger,
    );
    const registry = new RunRegistry({ shared });
    finish(registry, "local-1", "local");
    await shared.idle();
    const page = await listRuns(registry, {}, "local");
    expect(page.runs.map((r) => r.runId)).toEqual(["local-1"]);
    expect((await listRuns(registry, {}, undefined)).runs.map((r) => r.runId)).toEqual(["local-1"]);
    expect(await readRun(registry, "gone", { id: "local", operator: false })).toBeUndefined();
    const warnings = logger.records.filter((r) => r.event === "run-history.store-unavailable");
    expect(warnings.length).toBe(1);
    expect(warnings[0]?.level).toBe("warn");
    expect(String(warnings[0]?.error)).toContain("ECONNREFUSED");
  });
});

test("a large record is cut to the stored bound, its error's message cut in the listing", async () => {
  const { a, b, inspect } = await fleet();
  a.registry.start("huge", "big answer", "local");
  a.registry.succeed("huge", { text: "x".repeat(1_000_000), stopReason: "end", usage: emptyUsage(), turns: 1, toolCalls: 0 }, "local");
  a.registry.start("loud", "long error", "local");
  a.registry.fail("loud", { code: "E_X", message: "y".repeat(100_000) }, undefined, "local");
  await a.shared.idle();
  for (const { key } of await inspect.list("runs/record/"))
    expect(JSON.stringify((await inspect.get(key))?.value).length).toBeLessThanOrEqual(MAX_STORED_RECORD_CHARS + 1024);
  const huge = await readRun(b.registry, "huge", { id: "local", operator: false });
  expect(huge?.record.result?.text?.length).toBe(64 * 1024);
  const loud = (await listRuns(b.registry, { status: "failed" }, "local")).runs[0];
  expect(loud?.error?.message.length).toBe(500);
});
