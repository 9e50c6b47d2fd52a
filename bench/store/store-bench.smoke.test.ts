/** Smoke test of the store bench: a tiny configuration runs and yields ordered, positive figures. */
import { expect, test } from "bun:test";
import { redisServerPath } from "../../packages/sdk/src/store/__fixtures__/redis-server.ts";
import { runStoreBench } from "./store-bench.ts";

test("store bench: put latency and claim overhead on both backends", async () => {
  const r = await runStoreBench(20);
  for (const f of [r.directory, ...(r.redis ? [r.redis] : [])]) {
    expect(f.putP50).toBeGreaterThan(0);
    expect(f.putP99).toBeGreaterThanOrEqual(f.putP50);
    expect(f.claimP99).toBeGreaterThanOrEqual(f.claimP50);
  }
  expect(r.redis !== undefined).toBe(redisServerPath !== undefined);
}, 60_000);
