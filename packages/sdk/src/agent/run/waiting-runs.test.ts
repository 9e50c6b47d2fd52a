/**
 * The waiting-run store on a directory and on Redis (two store clients on one store stand for two replicas):
 * a saved run reads back; claiming it is a compare-and-set, so of many claimers racing exactly one wins; a
 * run resumed to its end leaves a tombstone ("already resumed", not "unknown"); a run id already waiting
 * cannot be saved over.
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
        expect((await replicas[1]!.get("run-a"))?.document).toMatchObject({ format: "agentd.waiting-run", version: 1, state: "waiting" });
        expect((await replicas[1]!.waiting()).map((r) => r.runId)).toEqual(["run-a"]);
        await expect(replicas[1]!.save(run("run-a"))).rejects.toThrow(/already waits for a decision/);
        const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => replicas[i % 2]!.claim("run-a", `replica-${i}`)));
        const won = claims.filter((c) => c.ok);
        expect(won).toHaveLength(1);
        expect(claims.filter((c) => !c.ok).every((c) => !c.ok && c.state === "resuming")).toBe(true);
        expect(await replicas[0]!.waiting()).toEqual([]);
        const claim = won[0] as { ok: true; version: number };
        await replicas[1]!.finish("run-a", claim.version);
        expect((await replicas[0]!.get("run-a"))?.document.state).toBe("resumed");
        expect(await replicas[0]!.claim("run-a", "late")).toEqual({ ok: false, state: "resumed" });
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
