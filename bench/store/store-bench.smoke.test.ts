/** Smoke test of the store bench: a tiny configuration runs and yields ordered, positive figures. */
import { expect, test } from "bun:test";
import { redisServerPath } from "@agentd/test-support/redis-server";
import { runStoreBench } from "./store-bench.ts";

test("store bench: put latency, claim overhead and checkpoint write latency on both backends", async () => {
  const r = await runStoreBench(20);
  for (const f of [r.directory, ...(r.redis ? [r.redis] : [])]) {
    expect(f.putP50).toBeGreaterThan(0);
    expect(f.putP99).toBeGreaterThanOrEqual(f.putP50);
    expect(f.claimP99).toBeGreaterThanOrEqual(f.claimP50);
    expect(f.checkpointP50).toBeGreaterThan(0);
    expect(f.checkpointP99).toBeGreaterThanOrEqual(f.checkpointP50);
    expect(f.checkpointBytes).toBeGreaterThan(2000);
  }
  expect(r.redis !== undefined).toBe(redisServerPath !== undefined);
}, 60_000);
