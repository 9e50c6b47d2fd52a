/**
 * Profiling aid (not part of `bun bench/run.ts`): the growth benchmark's subscription worker, old against
 * new interleaved — each round runs every tree's worker once, in turn, against a fresh fake gateway — and
 * the medians of p50, p99 (notification → run-start), the agent's CPU per change in the burst, the drain
 * rate and the single change's latency (see subscriptions-worker.ts).
 *
 *   bun bench/profile/subs-burst-ab.ts N BURST ROUNDS TREE_ROOT...
 *
 * With PROFILE_DIR set, each worker also writes a `bun --cpu-prof` profile there and prints the burst's
 * window (for `PROFILE_WINDOW=FROM,TO bun bench/profile/cpuprofile-top.ts`).
 */
import { join } from "node:path";
import { startFakeGateway } from "@agentd/testkit";
import { startChild } from "../lib/proc.ts";

const [n = "1000", burst = "100", rounds = "3", ...trees] = process.argv.slice(2);
if (trees.length === 0) throw new Error("usage: bun bench/profile/subs-burst-ab.ts N BURST ROUNDS TREE_ROOT...");
const profileDir = process.env.PROFILE_DIR;

interface Figures {
  p50: number;
  p99: number;
  cpuMsPerChange: number;
  /** Absent from workers before these figures were added. */
  drainPerSecond?: number;
  singleMs?: number;
  window?: [number, number];
}
const results = new Map<string, Figures[]>(trees.map((t) => [t, []]));
for (let round = 0; round < Number(rounds); round++) {
  for (const tree of trees) {
    const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "noted" }], onExhausted: "repeat-last" });
    const prof = profileDir
      ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${tree.replaceAll("/", "_")}-${round}.cpuprofile`]
      : [];
    const worker = startChild([process.execPath, ...prof, join(tree, "bench/growth/agent-worker.ts"), "subs", gateway.url, n, burst], {
      cwd: tree,
      env: profileDir ? { BENCH_BURST_WINDOW: "1" } : {},
    });
    try {
      const r = await worker.next<Figures>(600_000);
      results.get(tree)?.push(r);
      console.log(
        `${round} ${tree}: p50 ${r.p50.toFixed(1)} p99 ${r.p99.toFixed(1)} ms, cpu ${r.cpuMsPerChange.toFixed(3)} ms/change, drain ${Math.round(r.drainPerSecond ?? Number.NaN)}/s, single ${(r.singleMs ?? Number.NaN).toFixed(2)} ms${r.window ? ` window ${r.window.map(Math.round).join(",")}` : ""}`,
      );
      if (profileDir) await worker.exited;
    } finally {
      await worker.stop();
      await gateway.close();
    }
  }
}
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[(xs.length - 1) >> 1] ?? Number.NaN;
for (const [tree, rs] of results)
  console.log(
    `median of ${rs.length} ${tree}: p50 ${median(rs.map((r) => r.p50)).toFixed(1)} p99 ${median(rs.map((r) => r.p99)).toFixed(1)} ms, cpu ${median(rs.map((r) => r.cpuMsPerChange)).toFixed(3)} ms/change, drain ${Math.round(median(rs.map((r) => r.drainPerSecond ?? Number.NaN)))}/s, single ${median(rs.map((r) => r.singleMs ?? Number.NaN)).toFixed(2)} ms`,
  );
