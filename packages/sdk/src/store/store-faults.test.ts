/**
 * Faults: a store process killed with SIGKILL at random points while a client writes never loses an
 * acknowledged write and never leaves a torn document. 100 iterations a backend, each one a fresh store
 * process on the same data: four writers keep writes in flight on their own keys, the process is killed
 * after a random number of acknowledgements, then the data is read back in this process and checked
 * against what was acknowledged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpClient } from "../mcp/client/client.ts";
import { StdioChildTransport } from "../transport/stdio-child.ts";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { DirectoryBackend } from "./directory-backend.ts";
import { RedisBackend } from "./redis-backend.ts";
import { StoreClient } from "./store-client.ts";
import type { StoreBackend } from "./types.ts";

const ENTRY = resolve(import.meta.dir, "__fixtures__/store-entry.ts");
const ITERATIONS = 100;
const WRITERS = 4;
/** Big enough that a write takes several syscalls: a torn write would show. */
const PAD = 16 * 1024;

interface Doc {
  seq: number;
  pad: string;
}
const docFor = (seq: number): Doc => ({ seq, pad: String(seq % 10).repeat(PAD) });

/** One iteration: start the store, write until killed; resolves with the highest acknowledged seq per key. */
async function writeUntilKilled(args: string[], seqStart: number, killAfter: number): Promise<Map<string, number>> {
  const transport = new StdioChildTransport({
    name: "store",
    command: process.execPath,
    args: [ENTRY, ...args],
    termGraceMs: 100,
    closeGraceMs: 100,
  });
  const mcp = new McpClient({ name: "faults", version: "0" });
  await mcp.connect(transport);
  const store = new StoreClient(mcp);
  const acked = new Map<string, number>();
  let acks = 0;
  let killed = false;
  let seq = seqStart;
  const writer = async (w: number) => {
    for (;;) {
      const key = `w${w}/k${seq % 3}`;
      const mine = ++seq;
      try {
        await store.put(key, docFor(mine));
      } catch {
        return; // the kill: this write was not acknowledged
      }
      acked.set(key, Math.max(acked.get(key) ?? 0, mine));
      if (++acks >= killAfter && !killed) {
        killed = true;
        process.kill(transport.pid as number, "SIGKILL");
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  await mcp.close().catch(() => {});
  return acked;
}

async function check(backend: StoreBackend, acked: Map<string, number>): Promise<void> {
  for (const [key, seq] of acked) {
    const doc = await backend.get(key); // a torn document throws here
    expect(doc).toBeDefined();
    const value = doc?.value as Doc;
    // The acknowledged write, or a later one that landed before the kill: never an older one.
    expect(value.seq).toBeGreaterThanOrEqual(seq);
    expect(value).toEqual(docFor(value.seq));
  }
}

async function hammer(args: string[], open: () => StoreBackend): Promise<number> {
  let seq = 0;
  let checked = 0;
  for (let i = 0; i < ITERATIONS; i++) {
    const acked = await writeUntilKilled(args, seq, 1 + Math.floor(Math.random() * 12));
    seq += 100_000;
    const backend = open();
    try {
      await check(backend, acked);
    } finally {
      await backend.close();
    }
    checked += acked.size;
  }
  return checked;
}

describe("kill -9 of the store while a client writes", () => {
  test(`directory backend: ${ITERATIONS} kills, no acknowledged write lost, no torn document`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-faults-"));
    try {
      const checked = await hammer(["--dir", dir], () => new DirectoryBackend(dir));
      expect(checked).toBeGreaterThan(ITERATIONS);
      // Reopening removed the temp files of interrupted writes.
      expect(readdirSync(dir).filter((n) => n.startsWith(".tmp-"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  let redis: RunningRedis | undefined;
  beforeAll(async () => {
    if (redisServerPath) redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  test.skipIf(!redisServerPath)(
    `redis backend: ${ITERATIONS} kills of the store process, no acknowledged write lost, no torn document`,
    async () => {
      const url = (redis as RunningRedis).url;
      const checked = await hammer(["--redis", url, "faults:"], () => new RedisBackend({ url, prefix: "faults:" }));
      expect(checked).toBeGreaterThan(ITERATIONS);
    },
    180_000,
  );
});
