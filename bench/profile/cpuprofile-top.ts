/**
 * Profiling aid (not part of `bun bench/run.ts`): summarise a `.cpuprofile` written by `bun --cpu-prof`
 * — self time by function and by file, top N — to see where a benchmark subject spends its CPU.
 *
 *   bun bench/profile/cpuprofile-top.ts PROFILE.cpuprofile [N] [FUNCTION_NAME_TO_SHOW_CALLERS_OF]
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const [file = "", top = "25", callersOf] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
const byNode = new Map<number, number>();
// PROFILE_WINDOW=FROM,TO (epoch ms): only the samples taken in that window.
const [from = -Infinity, to = Infinity] = (process.env.PROFILE_WINDOW ?? "").split(",").filter(Boolean).map(Number);
let at = profile.startTime / 1000;
profile.samples.forEach((id, i) => {
  at += (profile.timeDeltas[i] ?? 0) / 1000;
  if (at >= from && at <= to) byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const total = [...byNode.values()].reduce((a, b) => a + b, 0);
const fn = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of byNode) {
  const f = nodes.get(id)?.callFrame;
  const where = (f?.url ?? "").replace(/^.*\/(node_modules|packages)\//, "$1/") || "(native)";
  const name = `${f?.functionName || "(anonymous)"}  ${where}:${(f?.lineNumber ?? 0) + 1}`;
  fn.set(name, (fn.get(name) ?? 0) + us);
  files.set(where, (files.get(where) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
};
show("self time by function", fn);
show("self time by file", files);

// With a third argument: whose calls the self time of functions with that name comes from.
if (callersOf) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const callers = new Map<string, number>();
  for (const [id, us] of byNode) {
    if (nodes.get(id)?.callFrame.functionName !== callersOf) continue;
    const p = nodes.get(parent.get(id) ?? -1)?.callFrame;
    const name = `${p?.functionName || "(anonymous)"}  ${(p?.url ?? "").replace(/^.*\/(node_modules|packages)\//, "$1/") || "(native)"}:${(p?.lineNumber ?? 0) + 1}`;
    callers.set(name, (callers.get(name) ?? 0) + us);
  }
  show(`callers of ${callersOf}`, callers);
}
