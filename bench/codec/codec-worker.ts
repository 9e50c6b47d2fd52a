/**
 * Codec measurement, run in a child process of its own: messages per second of each pipeline over each
 * message group, in interleaved timed rounds (load on a shared machine then hits every pipeline alike).
 * Prints one JSON line: `{ rates: { [group]: { [pipeline]: number[] } } }`, one rate per round.
 *
 *   bun bench/codec/codec-worker.ts ROUNDS ROUND_MS
 */
import { GROUPS } from "./corpus.ts";
import { PIPELINES, type Pipeline } from "./pipelines.ts";
import type { CodecMessage } from "./corpus.ts";

const rounds = Number(process.argv[2] ?? 5);
const roundMs = Number(process.argv[3] ?? 200);

let sink = 0;
/** Messages per second of `run` over `messages` for about `ms` milliseconds. */
function rate(run: Pipeline, messages: readonly CodecMessage[], ms: number): number {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while ((elapsed = performance.now() - start) < ms) {
    for (const m of messages) sink += run(m).length;
    count += messages.length;
  }
  return count / (elapsed / 1000);
}

// Every pipeline must accept every message, or its rate means nothing.
for (const g of GROUPS) for (const m of g.messages) for (const p of PIPELINES) p.run(m);

const rates: Record<string, Record<string, number[]>> = {};
for (const g of GROUPS) {
  rates[g.id] = Object.fromEntries(PIPELINES.map((p) => [p.id, [] as number[]]));
  for (const p of PIPELINES) rate(p.run, g.messages, Math.max(20, roundMs / 2)); // warm-up, discarded
}
for (let round = 0; round < rounds; round++) {
  for (const g of GROUPS) {
    // Rotate the order each round so no pipeline always runs right after the same neighbour.
    const order = PIPELINES.map((_, i) => PIPELINES[(i + round) % PIPELINES.length] as (typeof PIPELINES)[number]);
    for (const p of order) (rates[g.id] as Record<string, number[]>)[p.id]?.push(rate(p.run, g.messages, roundMs));
  }
}
if (sink < 0) console.error(sink);
console.log(JSON.stringify({ rates }));
