/**
 * Profiling aid (not part of `bun bench/run.ts`): a `.cpuprofile` written by `bun --cpu-prof` as a call tree
 * with inclusive shares — where `cpuprofile-top.ts` says which functions burn the samples, this says which
 * step of the request path they belong to (e.g. the body read, the MCP layer, the response).
 *
 *   bun bench/profile/cpuprofile-tree.ts PROFILE.cpuprofile [MAX_DEPTH=8] [MIN_PERCENT=1]
 *
 * The root's native child ("(anonymous)") holds the runtime's own work and idle time: compare it with the
 * same figure of the bare floor's profile rather than reading it as agentd's cost.
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file = "", maxDepth = "8", minPercent = "1"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const inclusive = new Map<number, number>();
function total(id: number): number {
  let t = self.get(id) ?? 0;
  for (const c of nodes.get(id)?.children ?? []) t += total(c);
  inclusive.set(id, t);
  return t;
}
const root = profile.nodes[0]?.id ?? 0;
const all = total(root);
const pct = (us: number) => ((100 * us) / all).toFixed(1);
function show(id: number, depth: number): void {
  const n = nodes.get(id);
  const t = inclusive.get(id) ?? 0;
  if (!n || (100 * t) / all < Number(minPercent) || depth > Number(maxDepth)) return;
  const f = n.callFrame;
  const where = f.url.replace(/^.*\/(packages|node_modules)\//, "$1/");
  console.log(
    `${"  ".repeat(depth)}${pct(t)}% (self ${pct(self.get(id) ?? 0)}) ${f.functionName || "(anonymous)"} ${where}:${f.lineNumber + 1}`,
  );
  for (const c of [...(n.children ?? [])].sort((a, b) => (inclusive.get(b) ?? 0) - (inclusive.get(a) ?? 0))) show(c, depth + 1);
}
show(root, 0);
