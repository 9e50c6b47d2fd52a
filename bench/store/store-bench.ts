/**
 * The store's costs, through its MCP server as agentd reaches it (a stdio child, `agentd store`'s code):
 * write latency (p50/p99 of `put` of a 2 KiB JSON document, the size of a small checkpoint) and claim
 * overhead per run (acquire + mark done, both compare-and-sets over MCP), and checkpoint write latency
 * (the agent's checkpoint writer: one compare-and-set of a whole checkpoint document — 4 subscriptions,
 * 8 subagent handles with their spawn payloads — per change) on the directory and Redis backends.
 *
 *   bun bench/store/store-bench.ts [--quick]     # prints one JSON object
 *
 * Redis figures need `redis-server` (started on 127.0.0.1, no persistence); without it they are absent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpClient } from "@agentd/sdk/mcp";
import { RunClaims, StoreClient } from "@agentd/sdk/store";
import { StdioChildTransport } from "@agentd/sdk/transport";
import { redisServerPath, startRedis } from "@agentd/test-support/redis-server";
import { percentile, sig } from "../lib/stats.ts";
import { nullLogger } from "../../packages/sdk/src/log.ts";
import type { CheckpointDocument } from "../../packages/sdk/src/agent/checkpoint/checkpoint-format.ts";
import { CheckpointWriter } from "../../packages/sdk/src/agent/checkpoint/checkpoint-writer.ts";

const ENTRY = resolve(import.meta.dir, "../../packages/sdk/src/store/__fixtures__/store-entry.ts");

/** Figures of one backend (ms). */
export interface StoreFigures {
  putP50: number;
  putP99: number;
  claimP50: number;
  claimP99: number;
  checkpointP50: number;
  checkpointP99: number;
  /** Bytes of the checkpoint document written. */
  checkpointBytes: number;
  samples: number;
}

/** A checkpoint as an agent with 4 subscriptions and 8 subagents writes it. */
function checkpointBody(n: number): Omit<CheckpointDocument, "writtenAt"> {
  const now = new Date().toISOString();
  const subs = Array.from({ length: 4 }, (_, i) => ({
    id: `self:orders:file:///q${i}`,
    server: "orders",
    uri: `file:///q${i}`,
    instruction: "Handle {{resource.text}}",
    origin: "self" as const,
    arrangedBy: "run-x",
  }));
  return {
    format: "agentd.checkpoint",
    version: 1,
    identity: "bench",
    subscriptions: subs,
    routes: subs.map((s) => ({ triggerId: s.id, kind: "subscription" as const, instruction: s.instruction })),
    runs: [{ runId: `run-${n}`, triggerId: "self:orders:file:///q0", startedAt: now }],
    handles: Array.from({ length: 8 }, (_, i) => ({
      id: `sa-${i}`,
      status: "working" as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttl: 3_600_000,
      owner: `run-${n}`,
      payload: {
        instruction: "Summarise the queue ".repeat(8),
        scopes: [{ allow: ["orders/*"] }],
        limits: { maxTurns: 10 },
        runId: `run-${n}.sa-${i}`,
        depth: 1,
      },
      usage: { inputTokens: n, outputTokens: 0, totalTokens: n },
      turns: 1,
      toolCalls: 0,
      attempts: 1,
    })),
  };
}

async function measure(args: string[], samples: number): Promise<StoreFigures> {
  const mcp = new McpClient({ name: "store-bench", version: "0" });
  await mcp.connect(new StdioChildTransport({ name: "store", command: process.execPath, args: [ENTRY, ...args] }));
  try {
    const store = new StoreClient(mcp);
    const doc = { handles: Array.from({ length: 16 }, (_, i) => ({ id: `h${i}`, state: "running", payload: "x".repeat(96) })) };
    const puts: number[] = [];
    for (let i = 0; i < samples + 10; i++) {
      const t = performance.now();
      await store.put(`bench/checkpoint/${i % 8}`, doc);
      if (i >= 10) puts.push(performance.now() - t); // the first ten warm up
    }
    const claims = new RunClaims({ store, holder: "bench", leaseMs: 60_000 });
    const live = new AbortController().signal;
    const claimMs: number[] = [];
    for (let i = 0; i < samples + 10; i++) {
      const t = performance.now();
      const got = await claims.acquire(`bench-${crypto.randomUUID()}`, live);
      if (got.status !== "claimed") throw new Error(`claim not granted: ${got.status}`);
      await got.claim.end(true);
      if (i >= 10) claimMs.push(performance.now() - t);
    }
    let n = 0;
    const writer = new CheckpointWriter({
      store: async () => store,
      key: `bench/checkpoints/${crypto.randomUUID()}`,
      build: () => checkpointBody(n),
      debounceMs: 0,
      logger: nullLogger,
    });
    for (let i = 0; i < samples + 10; i++) {
      n = i; // every write changes the document (a run started), as in an agent
      writer.schedule();
      await writer.flush();
    }
    const checkpointMs = writer.latencies.slice(10); // the first ten warm up
    const ms = (v: number) => sig(v, 3);
    return {
      putP50: ms(percentile(puts, 50)),
      putP99: ms(percentile(puts, 99)),
      claimP50: ms(percentile(claimMs, 50)),
      claimP99: ms(percentile(claimMs, 99)),
      checkpointP50: ms(percentile(checkpointMs, 50)),
      checkpointP99: ms(percentile(checkpointMs, 99)),
      checkpointBytes: JSON.stringify(checkpointBody(n)).length,
      samples,
    };
  } finally {
    await mcp.close();
  }
}

/** Run the store bench; `samples` per figure. */
export async function runStoreBench(samples: number): Promise<{ directory: StoreFigures; redis?: StoreFigures }> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-bench-"));
  try {
    const directory = await measure(["--dir", dir], samples);
    if (!redisServerPath) return { directory };
    const redis = await startRedis();
    try {
      return { directory, redis: await measure(["--redis", redis.url, "bench:"], samples) };
    } finally {
      await redis.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main)
  process.stdout.write(`${JSON.stringify(await runStoreBench(process.argv.includes("--quick") ? 50 : 500), null, 2)}\n`);
