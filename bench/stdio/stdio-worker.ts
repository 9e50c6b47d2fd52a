/**
 * One stdio measurement in a child process of its own: connect CLIENT to a fresh SERVER child, warm up,
 * then (1) LAT_CALLS echo tools/calls one at a time, timing each, and (2) THRU_MS of calls with INFLIGHT
 * in flight. Prints `{ p50Us, p99Us, callsPerSec }` as one JSON line.
 *
 *   bun bench/stdio/stdio-worker.ts CLIENT SERVER LAT_CALLS THRU_MS INFLIGHT
 */
import { percentile } from "../lib/stats.ts";
import { connect, type ClientKind, type ServerKind } from "./clients.ts";

const [client, server, latCalls = "1000", thruMs = "1000", inflight = "32"] = process.argv.slice(2);
const caller = await connect(client as ClientKind, server as ServerKind);
try {
  const calls = Number(latCalls);
  // Warm-up: enough calls for the JIT on both sides, sequential and concurrent.
  for (let i = 0; i < Math.min(300, calls); i++) await caller.call();
  await Promise.all(
    Array.from({ length: Number(inflight) }, async () => {
      for (let i = 0; i < Math.min(30, calls); i++) await caller.call();
    }),
  );

  const samples = new Float64Array(calls);
  const latencyDeadline = performance.now() + 20_000;
  let n = 0;
  for (; n < calls && performance.now() < latencyDeadline; n++) {
    const t0 = performance.now();
    await caller.call();
    samples[n] = (performance.now() - t0) * 1000;
  }
  const taken = Array.from(samples.subarray(0, n));

  let done = 0;
  const start = performance.now();
  const stopAt = start + Number(thruMs);
  await Promise.all(
    Array.from({ length: Number(inflight) }, async () => {
      while (performance.now() < stopAt) {
        await caller.call();
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ p50Us: percentile(taken, 50), p99Us: percentile(taken, 99), callsPerSec: done / elapsed, latencyCalls: n }));
} finally {
  await caller.close();
}
process.exit(0);
