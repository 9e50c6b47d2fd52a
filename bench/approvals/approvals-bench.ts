/**
 * Benchmark: runs that wait durably for a person's decision (docs/approvals.md, "Waiting durably"). Two
 * figures, each from its own worker process (waiting-worker.ts) on a fresh local state directory:
 *
 * - the memory one waiting run costs beyond an idle agent: N runs each ending `status: "waiting"`, saved,
 *   then the process's RSS and heap after a full GC against the idle agent's, per run (target ≤ 5 KB: a
 *   waiting run holds no model request, no tool call and no Run in flight — only its saved document);
 * - the time from a decision to the tool call in one process: `agent.resume(runId, decisions)` until the
 *   approved tool is called (claim the saved run, rebuild the loop, make the call), p50 (target ≤ 50 ms);
 * - the same across processes on Redis (when `redis-server` is installed): one process saves the runs
 *   waiting, another resumes them from the shared store (target ≤ 250 ms).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { redisServerPath, startRedis } from "@agentd/test-support/redis-server";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { BENCH_DIR, runToEnd } from "../lib/proc.ts";
import { percentile, sig } from "../lib/stats.ts";

const SIZES: Record<Mode, { repeats: number; runs: number; decisions: number }> = {
  full: { repeats: 3, runs: 1000, decisions: 200 },
  quick: { repeats: 2, runs: 1000, decisions: 100 },
  tiny: { repeats: 1, runs: 50, decisions: 10 },
};

const WORKER = join(BENCH_DIR, "approvals", "waiting-worker.ts");

/** One worker to its end, its JSON line (`store`: a Redis URL, else a fresh local state directory). */
async function worker<T>(args: string[], store?: { url: string; prefix: string }): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-bench-waiting-"));
  try {
    const r = await runToEnd([process.execPath, WORKER, ...args, store?.url ?? dir], { env: store ? { BENCH_PREFIX: store.prefix } : {} });
    const line = r.stdout.trim().split("\n").at(-1) ?? "";
    if (!line.startsWith("{")) throw new Error(`waiting-worker ${args[0]} printed no result: ${r.stderr.slice(-400)}`);
    return JSON.parse(line) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Decision → tool call times (ms) of `n` runs saved by one worker and resumed by another on Redis. */
async function acrossProcesses(url: string, n: number): Promise<number[]> {
  const store = { url, prefix: `bench${crypto.randomUUID()}:` };
  const saved = await worker<{ runs: unknown[] }>(["save", String(n + 10)], store);
  const dir = mkdtempSync(join(tmpdir(), "agentd-bench-runs-"));
  try {
    const file = join(dir, "runs.json");
    writeFileSync(file, JSON.stringify(saved));
    return (await worker<{ times: number[] }>(["resume", file], store)).times;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run the approvals benchmark. */
export async function runApprovals(mode: Mode, log: (line: string) => void = () => {}): Promise<BenchResult> {
  const started = performance.now();
  const size = SIZES[mode];
  const runs = { rss: [] as number[], heap: [] as number[], p50: [] as number[], p99: [] as number[], redis: [] as number[] };
  const redis = redisServerPath ? await startRedis() : undefined;
  try {
    for (let rep = 0; rep < size.repeats; rep++) {
      const m = await worker<{ inFlight: number; rssPerRunKb: number; heapPerRunKb: number }>(["memory", String(size.runs)]);
      if (m.inFlight !== 0) throw new Error(`${m.inFlight} runs still in flight while waiting`);
      // A run's share can round to nothing (or below, when the GC returned pages): the smallest positive figure stands.
      runs.rss.push(sig(Math.max(0.01, m.rssPerRunKb)));
      runs.heap.push(sig(Math.max(0.01, m.heapPerRunKb)));
      const l = await worker<{ times: number[] }>(["latency", String(size.decisions)]);
      runs.p50.push(sig(percentile(l.times, 50)));
      runs.p99.push(sig(percentile(l.times, 99)));
      if (redis) runs.redis.push(sig(percentile(await acrossProcesses(redis.url, size.decisions), 50)));
      log(
        `approvals: repeat ${rep + 1}/${size.repeats}: ${runs.rss.at(-1)} KB RSS and ${runs.heap.at(-1)} KB heap a waiting run; decision → tool call p50 ${runs.p50.at(-1)} ms${redis ? `, across processes on Redis ${runs.redis.at(-1)} ms` : ""}`,
      );
    }
  } finally {
    await redis?.stop();
  }
  const specs: FigureSpec[] = [
    {
      id: "waiting.rss",
      group: `${size.runs} runs waiting beyond an idle agent (local state directory)`,
      subject: "agentd: RSS per waiting run",
      metric: "memory",
      unit: "KB",
      better: "lower",
      runs: runs.rss,
      targets: [{ text: "≤ 5 KB a waiting run", against: "value", op: "<=", value: 5 }],
    },
    {
      id: "waiting.heap",
      group: `${size.runs} runs waiting beyond an idle agent (local state directory)`,
      subject: "agentd: JS heap per waiting run",
      metric: "memory",
      unit: "KB",
      better: "lower",
      runs: runs.heap,
    },
    {
      id: "decision.p50",
      group: "decision → tool call, one process (agent.resume, local state directory)",
      subject: "agentd: p50",
      metric: "p50 latency",
      unit: "ms",
      better: "lower",
      runs: runs.p50,
      targets: [{ text: "≤ 50 ms", against: "value", op: "<=", value: 50 }],
    },
    {
      id: "decision.p99",
      group: "decision → tool call, one process (agent.resume, local state directory)",
      subject: "agentd: p99",
      metric: "p99 latency",
      unit: "ms",
      better: "lower",
      runs: runs.p99,
    },
  ];
  if (runs.redis.length)
    specs.push({
      id: "decision.redis.p50",
      group: "decision → tool call, across processes on one Redis store (agent.resume of a run another process saved)",
      subject: "agentd: p50",
      metric: "p50 latency",
      unit: "ms",
      better: "lower",
      runs: runs.redis,
      targets: [{ text: "≤ 250 ms", against: "value", op: "<=", value: 250 }],
    });
  return {
    bench: "approvals",
    mode,
    command: `bun bench/run.ts approvals${mode === "quick" ? " --quick" : ""}`,
    seconds: sig((performance.now() - started) / 1000),
    figures: finishFigures("approvals", specs),
    notes: [
      "Each figure from a fresh worker process (bench/approvals/waiting-worker.ts): createAgent with an in-process model that calls one tool held by an approval rule, nobody to ask in code, so every run ends status: waiting, saved in a fresh local state directory (the directory store, opened per operation and fsynced).",
      "Memory: RSS and heap after Bun.gc(true), after N waiting runs against after 500 warm-up runs (the one-off growth of the first few hundred, ≈ 10 MB and flat beyond, is the idle agent warming, not the runs), divided by N (a figure at or below nothing is shown as 0.01 KB: the process was no larger after than before); no run is left in flight (checked).",
      "Decision → tool call: from agent.resume(runId, decisions) being called to the approved tool being called, in the process that holds the decision; each resumed run then finishes.",
      "Across processes on Redis: one worker saves the runs waiting in a redis-server (RedisBackend), a second worker resumes them; the time is the second's, from agent.resume to the tool call (the claim and the reads go to Redis). It does not include hearing the decision through the approval desk's store notification.",
    ],
  };
}
