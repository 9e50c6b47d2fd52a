/**
 * The waiting-run store on a directory and on Redis (two store clients on one store stand for two replicas):
 * a saved run reads back; claiming it is a compare-and-set, so of many claimers racing exactly one wins; a
 * run resumed to its end leaves a tombstone ("already resumed", not "unknown"); a run id already waiting
 * cannot be saved over. The claim is a lease: refused while it holds, taken over (by one of several racers)
 * once it lapsed, with the first claim's decisions and journal; version 1 documents are read, and one being
 * resumed (an older agentd's claim, with no lease) is never taken over.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import { RedisBackend } from "../../store/redis-backend.ts";
import type { StoreBackend } from "../../store/types.ts";
import { type WaitingRun, WaitingRuns } from "./waiting-runs.ts";

let redis: RunningRedis | undefined;
beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const run = (runId: string): WaitingRun => ({
  runId,
  origin: { kind: "mcp" },
  principal: "bearer:alice",
  input: "clean up",
  createdAt: new Date().toISOString(),
  suspension: {
    messages: [{ role: "user", content: "clean up" }],
    results: [],
    pending: [],
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    turns: 1,
    toolCalls: 1,
    elapsedMs: 5,
    allowedForRun: [],
  },
});

/** Two stores on one place (two replicas), and how to let them go. */
type Pair = { a: StoreBackend; b: StoreBackend; close: () => Promise<void> };
const stores: Array<{ name: string; skip: boolean; open: () => Pair }> = [
  {
    name: "directory",
    skip: false,
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), "agentd-waiting-runs-"));
      const one = new DirectoryBackend(dir);
      return { a: one, b: one, close: async () => (await one.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  },
  {
    name: "redis",
    skip: !redisServerPath,
    open: () => {
      const prefix = `waiting${crypto.randomUUID()}:`;
      const a = new RedisBackend({ url: (redis as RunningRedis).url, prefix });
      const b = new RedisBackend({ url: (redis as RunningRedis).url, prefix });
      return { a, b, close: async () => (await a.close(), await b.close()) };
    },
  },
];

for (const s of stores) {
  describe.skipIf(s.skip)(`waiting runs on the ${s.name} store`, () => {
    test("saved, read back; of eight racing claimers exactly one wins; resumed, its tombstone says so", async () => {
      const pair = s.open();
      try {
        const replicas = [new WaitingRuns(async () => pair.a), new WaitingRuns(async () => pair.b)];
        await replicas[0]!.save(run("run-a"));
        expect((await replicas[1]!.get("run-a"))?.document).toMatchObject({ format: "agentd.waiting-run", version: 2, state: "waiting" });
        expect((await replicas[1]!.waiting()).map((r) => r.runId)).toEqual(["run-a"]);
        await expect(replicas[1]!.save(run("run-a"))).rejects.toThrow(/already waits for a decision/);
        const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => replicas[i % 2]!.claim("run-a", `replica-${i}`)));
        const won = claims.filter((c) => c.ok);
        expect(won).toHaveLength(1);
        expect(claims.filter((c) => !c.ok).every((c) => !c.ok && c.state === "resuming")).toBe(true);
        expect(await replicas[0]!.waiting()).toEqual([]);
        const claim = won[0] as { ok: true; version: number; document: { claimedBy: string } };
        await replicas[1]!.finish("run-a", claim.version);
        expect((await replicas[0]!.get("run-a"))?.document.state).toBe("resumed");
        expect(await replicas[0]!.claim("run-a", "late")).toEqual({ ok: false, state: "resumed", by: claim.document.claimedBy });
        expect(await replicas[0]!.claim("run-unknown", "late")).toEqual({ ok: false, state: "unknown" });
        // The same run id may wait again once resumed (a new run under a reused id).
        await replicas[0]!.save(run("run-a"));
        expect((await replicas[1]!.get("run-a"))?.document.state).toBe("waiting");
      } finally {
        await pair.close();
      }
    });
  });
}

describe("the claim's lease", () => {
  test("refused while it holds; once lapsed, one of the racers takes it over with the first claim's decisions and journal", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-waiting-lease-"));
    const store = new DirectoryBackend(dir);
    try {
      let now = Date.parse("2026-12-06T10:00:00Z");
      const runs = new WaitingRuns(
        async () => store,
        () => now,
      );
      await runs.save(run("run-l"));
      const first = await runs.claim("run-l", "dead", { "apr-1": { decision: "approve", by: "ops" } }, 30_000);
      if (!first.ok) throw new Error("the first claim must win");
      expect(first.takenOverFrom).toBeUndefined();
      const journaled = { ...first.document, calls: { "call-1": { startedAt: new Date(now).toISOString(), by: "dead" } } };
      const v = await runs.replace("run-l", first.version, journaled);
      expect(v).toBe(first.version + 1);
      now += 29_000;
      expect(await runs.claim("run-l", "early", {}, 30_000)).toEqual({
        ok: false,
        state: "resuming",
        by: "dead",
        leaseUntil: first.document.leaseUntil,
      });
      now += 1_000;
      const racers = await Promise.all(
        ["a", "b", "c", "d"].map((by) => runs.claim("run-l", by, { "apr-1": { decision: "deny", by: by } }, 30_000)),
      );
      const won = racers.filter((c) => c.ok);
      expect(won).toHaveLength(1);
      const taken = won[0] as Extract<(typeof racers)[number], { ok: true }>;
      expect(taken.takenOverFrom).toBe("dead");
      expect(taken.document.decisions).toEqual({ "apr-1": { decision: "approve", by: "ops" } });
      expect(taken.document.calls).toEqual(journaled.calls);
      expect(taken.document.leaseUntil).toBe(now + 30_000);
      // The one it took from cannot write any more.
      expect(await runs.replace("run-l", v as number, journaled)).toBeUndefined();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("version 1 documents: a waiting one is claimed (written as version 2); a resuming one, with no lease, is never taken over", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-waiting-v1-"));
    const store = new DirectoryBackend(dir);
    try {
      let now = Date.now();
      const runs = new WaitingRuns(
        async () => store,
        () => now,
      );
      // Written as an older agentd wrote them (the key is the run id's hash: saved, then overwritten).
      await runs.save(run("run-v1"));
      await runs.save(run("run-v1-busy"));
      for (const [id, state] of [
        ["run-v1", "waiting"],
        ["run-v1-busy", "resuming"],
      ] as const) {
        const listed = await store.list("waiting-run/");
        for (const k of listed) {
          const d = (await store.get(k.key))!.value as { run: { runId: string } };
          if (d.run.runId === id)
            await store.put(k.key, {
              format: "agentd.waiting-run",
              version: 1,
              state,
              run: run(id),
              ...(state === "resuming" ? { claimedBy: "old", claimedAt: new Date(now).toISOString() } : {}),
            });
        }
      }
      const claimed = await runs.claim("run-v1", "new");
      expect(claimed.ok).toBe(true);
      expect((await runs.get("run-v1"))?.document).toMatchObject({ version: 2, state: "resuming", claimedBy: "new" });
      now += 365 * 86_400_000;
      expect(await runs.claim("run-v1-busy", "new")).toMatchObject({ ok: false, state: "resuming", by: "old" });
      const resuming = (await runs.resuming()).sort((a, b) => a.runId.localeCompare(b.runId));
      expect(resuming).toEqual([
        { runId: "run-v1", leaseUntil: expect.any(Number) },
        { runId: "run-v1-busy", leaseUntil: undefined },
      ]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
