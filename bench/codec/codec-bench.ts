/**
 * Benchmark 1, codec: decode + validate + encode of real MCP messages — agentd's codec against the official
 * SDKs' schemas parsing the same messages, and against bare JSON (the floor). Messages per second.
 */
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { BUN, runToEnd } from "../lib/proc.ts";
import { GROUPS } from "./corpus.ts";
import { PIPELINES } from "./pipelines.ts";

const SIZES: Record<Mode, { rounds: number; roundMs: number }> = {
  full: { rounds: 7, roundMs: 250 },
  quick: { rounds: 3, roundMs: 150 },
  tiny: { rounds: 3, roundMs: 15 },
};

/** Run the codec benchmark. */
export async function runCodec(mode: Mode): Promise<BenchResult> {
  const started = performance.now();
  const { rounds, roundMs } = SIZES[mode];
  const r = await runToEnd([BUN, "bench/codec/codec-worker.ts", String(rounds), String(roundMs)], { timeoutMs: 300_000 });
  if (r.code !== 0) throw new Error(`codec worker failed (${r.code}): ${r.stderr.slice(-2000)}`);
  const { rates } = JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as { rates: Record<string, Record<string, number[]>> };
  const specs: FigureSpec[] = [];
  for (const g of GROUPS) {
    for (const p of PIPELINES) {
      const spec: FigureSpec = {
        id: `${g.id}.${p.id}`,
        group: g.label,
        subject: p.subject,
        metric: "decode+validate+encode",
        unit: "msgs/s",
        better: "higher",
        runs: rates[g.id]?.[p.id] ?? [],
      };
      if (p.id !== "floor") spec.floor = `${g.id}.floor`;
      if (p.id === "ours") {
        spec.peer = `${g.id}.sdk`;
        if (g.id === "small")
          spec.targets = [
            { text: "≥ 3× official SDK", against: "peer", op: ">=", value: 3 },
            { text: "within 1.5× of the JSON floor (≥ 0.667× its rate)", against: "floor", op: ">=", value: 1 / 1.5 },
            { text: "raised: ≥ 0.9× the JSON floor", against: "floor", op: ">=", value: 0.9 },
          ];
      }
      specs.push(spec);
    }
  }
  return {
    bench: "codec",
    mode,
    command: `bun bench/run.ts codec${mode === "quick" ? " --quick" : ""}`,
    seconds: (performance.now() - started) / 1000,
    figures: finishFigures("codec", specs),
    notes: [
      `${rounds} interleaved rounds of ${roundMs} ms per pipeline and group, in one Bun process (bench/codec/codec-worker.ts); each run is one round's rate.`,
      "Input is the message's JSON text; output is its NDJSON frame. The SDK pipelines parse the envelope (JSONRPCMessageSchema) and then the method's schema, as their stdio transport and Protocol do before a handler runs; agentd runs classify() and the codec of the message's revision (2025-11-25; 2026-07-28 for the \"2026-07-28 small messages\" group, which carries the per-request _meta envelope, resultType and caching hints) for the method.",
    ],
  };
}
