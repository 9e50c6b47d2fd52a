/**
 * Benchmark 2, stdio round trip: an echo tools/call between a client and a server child over pipes —
 * p50/p99 latency with one call in flight, and calls per second with 32 in flight. Pairs: agentd ↔ agentd,
 * official SDK ↔ official SDK, the two crossed, v2 SDK ↔ v2 SDK, and the floor (a raw NDJSON echo child) —
 * all at 2025-11-25 — and at MCP 2026-07-28 (stateless, per-request `_meta`): agentd ↔ agentd, v2 SDK ↔ v2
 * SDK (`serveStdio`) and agentd → v2 SDK.
 */
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { cpus } from "node:os";
import { BUN, runToEnd, which } from "../lib/proc.ts";

const SIZES: Record<Mode, { repeats: number; latCalls: number; thruMs: number }> = {
  full: { repeats: 5, latCalls: 3000, thruMs: 1500 },
  quick: { repeats: 3, latCalls: 1000, thruMs: 800 },
  tiny: { repeats: 1, latCalls: 40, thruMs: 100 },
};
const INFLIGHT = 32;

const PAIRS = [
  { id: "ours", client: "agentd", server: "agentd", subject: "agentd client ↔ agentd server" },
  { id: "sdk", client: "sdk", server: "sdk", subject: "official SDK 1.32.2 client ↔ server" },
  { id: "ours-sdk", client: "agentd", server: "sdk", subject: "agentd client → official SDK server" },
  { id: "sdk-ours", client: "sdk", server: "agentd", subject: "official SDK client → agentd server" },
  { id: "sdk2", client: "sdk2", server: "sdk2", subject: "v2 SDK 2.4.0 client ↔ server" },
  { id: "ours-2026", client: "agentd-2026", server: "agentd", subject: "agentd client ↔ agentd server, MCP 2026-07-28" },
  { id: "sdk2-2026", client: "sdk2-2026", server: "sdk2-dual", subject: "v2 SDK 2.4.0 client ↔ server, MCP 2026-07-28" },
  { id: "ours-sdk2-2026", client: "agentd-2026", server: "sdk2-dual", subject: "agentd client → v2 SDK server, MCP 2026-07-28" },
  { id: "floor", client: "raw", server: "raw", subject: "floor: raw NDJSON echo over a pipe" },
] as const;

interface Sample {
  p50Us: number;
  p99Us: number;
  callsPerSec: number;
}

/** Run the stdio benchmark. */
export async function runStdio(mode: Mode): Promise<BenchResult> {
  const started = performance.now();
  const { repeats, latCalls, thruMs } = SIZES[mode];
  const samples = new Map<string, Sample[]>(PAIRS.map((p) => [p.id, []]));
  // Client and server on one CPU (the server child inherits the affinity). Unpinned, the scheduler sometimes
  // puts them on one core and sometimes on two, and a cross-core wake-up on this kind of VM costs more than
  // the whole round trip being compared; pinned, every pair has the same placement, every run.
  const pin = which("taskset") !== undefined && cpus().length >= 2;
  const prefix = pin ? ["taskset", "-c", "1"] : [];
  // Interleave: every pair once per repeat, so load that comes and goes hits all pairs alike.
  for (let rep = 0; rep < repeats; rep++) {
    for (const p of PAIRS) {
      const r = await runToEnd(
        [...prefix, BUN, "bench/stdio/stdio-worker.ts", p.client, p.server, String(latCalls), String(thruMs), String(INFLIGHT)],
        {
          timeoutMs: 120_000,
        },
      );
      if (r.code !== 0) throw new Error(`stdio worker ${p.id} failed (${r.code}): ${r.stderr.slice(-2000)}`);
      samples.get(p.id)?.push(JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as Sample);
    }
  }
  const specs: FigureSpec[] = [];
  const metrics = [
    { key: "p50Us", group: "p50 latency, 1 in flight", metric: "p50", unit: "µs", better: "lower" },
    { key: "p99Us", group: "p99 latency, 1 in flight", metric: "p99", unit: "µs", better: "lower" },
    { key: "callsPerSec", group: `throughput, ${INFLIGHT} in flight`, metric: "calls/s", unit: "calls/s", better: "higher" },
  ] as const;
  for (const m of metrics) {
    for (const p of PAIRS) {
      const spec: FigureSpec = {
        id: `${m.key}.${p.id}`,
        group: m.group,
        subject: p.subject,
        metric: m.metric,
        unit: m.unit,
        better: m.better,
        runs: (samples.get(p.id) ?? []).map((s) => s[m.key]),
      };
      if (p.id !== "floor") spec.floor = `${m.key}.floor`;
      if (p.id !== "sdk" && p.id !== "floor") spec.peer = `${m.key}.sdk`;
      if (p.id === "ours" && m.key === "p50Us")
        spec.targets = [
          { text: "≤ 0.8× the official SDK pair", against: "peer", op: "<=", value: 0.8 },
          { text: "raised: ≤ 1.25× the raw pipe echo floor", against: "floor", op: "<=", value: 1.25 },
        ];
      if (p.id === "ours" && m.key === "callsPerSec")
        spec.targets = [{ text: "≥ 3× the official SDK pair", against: "peer", op: ">=", value: 3 }];
      specs.push(spec);
    }
  }
  return {
    bench: "stdio",
    mode,
    command: `bun bench/run.ts stdio${mode === "quick" ? " --quick" : ""}`,
    seconds: (performance.now() - started) / 1000,
    figures: finishFigures("stdio", specs),
    notes: [
      `Each run is a fresh client process (bench/stdio/stdio-worker.ts) spawning a fresh server child under Bun${pin ? ", both pinned to CPU 1 with taskset (a round trip then costs both sides' CPU time and two context switches, not a cross-core wake-up)" : " (unpinned: no taskset or one CPU)"}; after a warm-up it times ${latCalls} sequential calls (latency), then calls with ${INFLIGHT} in flight for ${thruMs} ms (throughput). Pairs are interleaved across ${repeats} repeats.`,
      "The tool is `echo {text}` registered the idiomatic way on each server (agentd: JSON Schema inputSchema; SDKs: zod). The floor's client JSON-encodes the same tools/call, and parses the echoed line.",
    ],
  };
}
