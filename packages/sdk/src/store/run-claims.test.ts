/** Run claims against a real store (the MCP server on the directory backend, and on Redis when installed). */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectStore } from "@agentd/test-support/connect-store";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { DirectoryBackend } from "./directory-backend.ts";
import { RedisBackend } from "./redis-backend.ts";
import { nullLogger } from "../log.ts";
import { RunClaims, type ClaimDocument } from "./run-claims.ts";
import type { StoreClient } from "./store-client.ts";
import type { StoreBackend } from "./types.ts";

let redis: RunningRedis | undefined;
beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const backends: Array<{ name: string; skip: boolean; open: () => StoreBackend }> = [
  { name: "directory", skip: false, open: () => new DirectoryBackend(mkdtempSync(join(tmpdir(), "agentd-claims-"))) },
  {
    name: "redis",
    skip: !redisServerPath,
    open: () => new RedisBackend({ url: (redis as RunningRedis).url, prefix: `claims${crypto.randomUUID()}:` }),
  },
];

for (const b of backends) {
  describe.skipIf(b.skip)(`run claims on the ${b.name} store`, () => {
    let store: StoreClient;
    const cleanup: Array<() => Promise<void> | void> = [];
    const open = async () => {
      const backend = b.open();
      if (backend instanceof DirectoryBackend) cleanup.push(() => rmSync(backend.dir, { recursive: true, force: true }));
      cleanup.push(() => backend.close());
      const c = await connectStore(backend);
      cleanup.push(c.close);
      store = c.store;
    };
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });
    const live = new AbortController().signal;

    test("one of two replicas claims a run id; the other waits and then hears it is done", async () => {
      await open();
      const a = new RunClaims({ store, holder: "a", leaseMs: 600 });
      const b = new RunClaims({ store, holder: "b", leaseMs: 600 });
      const first = await a.acquire("run-1", live);
      expect(first.status).toBe("claimed");
      const second = b.acquire("run-1", live);
      // b is waiting on a live lease: end a's claim (renewed meanwhile) as succeeded.
      if (first.status === "claimed") await first.claim.end(true);
      expect(await second).toEqual({ status: "done" });
      expect((await store.get(RunClaims.key("run-1")))?.value).toMatchObject({ holder: "a", state: "done" });
    });

    test("a failed run releases its claim: a waiting replica runs it", async () => {
      await open();
      const a = new RunClaims({ store, holder: "a", leaseMs: 600 });
      const b = new RunClaims({ store, holder: "b", leaseMs: 600 });
      const first = await a.acquire("run-2", live);
      const second = b.acquire("run-2", live);
      if (first.status === "claimed") await first.claim.end(false);
      const got = await second;
      expect(got.status).toBe("claimed");
      if (got.status === "claimed") {
        expect(got.claim.takenOver).toBe(false);
        await got.claim.end(true);
      }
    });

    test("a holder that died (lease not renewed) is taken over once its lease expires; of several waiters exactly one wins", async () => {
      await open();
      const expiresAt = Date.now() + 400;
      await store.compareAndSet(RunClaims.key("run-3"), 0, { holder: "dead", state: "running", expiresAt } satisfies ClaimDocument);
      const waiters = ["b", "c", "d"].map((h) => new RunClaims({ store, holder: h, leaseMs: 2000 }));
      const outcomes = waiters.map((w) => w.acquire("run-3", live));
      const first = await Promise.race(outcomes);
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
      expect(first.status).toBe("claimed");
      if (first.status !== "claimed") return;
      expect(first.claim.takenOver).toBe(true);
      const doc = (await store.get(RunClaims.key("run-3")))?.value as ClaimDocument;
      expect(doc.holder).not.toBe("dead");
      await first.claim.end(true);
      const all = await Promise.all(outcomes);
      expect(all.filter((o) => o.status === "claimed")).toHaveLength(1);
      expect(all.filter((o) => o.status === "done")).toHaveLength(2);
    });

    test("a holder whose claim was taken over hears it through the lost signal", async () => {
      await open();
      const a = new RunClaims({ store, holder: "a", leaseMs: 300 });
      const got = await a.acquire("run-4", live);
      expect(got.status).toBe("claimed");
      if (got.status !== "claimed") return;
      const key = RunClaims.key("run-4");
      const current = await store.get(key);
      await store.compareAndSet(key, current?.version ?? 0, {
        holder: "usurper",
        state: "running",
        expiresAt: Date.now() + 60_000,
      } satisfies ClaimDocument);
      await new Promise<void>((r) => got.claim.lost.addEventListener("abort", () => r(), { once: true }));
      await got.claim.end(true);
      // The usurper's claim is left alone.
      expect(((await store.get(key))!.value as ClaimDocument).holder).toBe("usurper");
    });

    test("aborting a waiter ends its wait", async () => {
      await open();
      const a = new RunClaims({ store, holder: "a", leaseMs: 60_000 });
      const b = new RunClaims({ store, holder: "b", leaseMs: 60_000 });
      const held = await a.acquire("run-5", live);
      const stop = new AbortController();
      const waiting = b.acquire("run-5", stop.signal);
      stop.abort();
      expect(await waiting).toEqual({ status: "aborted" });
      if (held.status === "claimed") await held.claim.end(true);
    });

    test("a succeeded run's claim answers done for its retention, then is swept (running claims and skipped ones stay)", async () => {
      await open();
      let clock = 1_000_000;
      const a = new RunClaims({ store, holder: "a", leaseMs: 60_000, retentionMs: 5_000, now: () => clock });
      const done = await a.acquire("run-6", live);
      if (done.status === "claimed") await done.claim.end(true);
      expect((await store.get(RunClaims.key("run-6")))?.value).toMatchObject({ state: "done", keepUntil: 1_005_000 });
      const running = await a.acquire("run-7", live);
      const other = await a.acquire("served-x", live);
      if (other.status === "claimed") await other.claim.end(true);
      const records: string[] = [];
      const logger = { ...nullLogger, info: (event: string) => void records.push(event) };
      const sweeper = a.sweeper(logger, "claims", "claims/", "claims/served-")!;
      clock += 4_999;
      expect(await a.acquire("run-6", live)).toEqual({ status: "done" });
      expect(await sweeper.sweep()).toEqual({ checked: 3, deleted: 0 });
      clock += 1;
      expect(await sweeper.sweep()).toEqual({ checked: 3, deleted: 1 });
      expect(records).toEqual(["store.swept"]);
      expect(await store.get(RunClaims.key("run-6"))).toBeUndefined();
      expect(await store.get(RunClaims.key("run-7"))).toBeDefined();
      expect(await store.get(RunClaims.key("served-x"))).toBeDefined();
      if (running.status === "claimed") await running.claim.end(false);
      await sweeper.stop();
    });
  });
}
