/**
 * Profiling aid (not part of `bun bench/run.ts`): the stdio client's CPU in two trees, old against new,
 * interleaved, by what load moves little (CPU time, not wall time):
 *
 * - marginal CPU per round trip: `stdio-cpu-worker.ts calls` at LOW and HIGH sequential tools/calls,
 *   (HIGH − LOW) / (HIGH − LOW calls), for both processes (`perf stat -e task-clock`, children included) and
 *   for the client alone (its `process.cpuUsage()`);
 * - start-up: `stdio-cpu-worker.ts servers` for each size in SIZES (the growth benchmark's light server): CPU of the whole tree and of the client.
 *
 * The client's CPU over the HIGH-call loop alone (per call) is reported too.
 *
 *   bun bench/profile/stdio-client-ab.ts OLD_ROOT NEW_ROOT [rounds=5] [low=2000] [high=8000] [sizes=10,50 | ""]   (high = low: no calls)
 */
import { join } from "node:path";

const [oldRoot = "", newRoot = "", rounds = "5", low = "2000", high = "8000", sizes = "10,50"] = process.argv.slice(2);
if (!oldRoot || !newRoot) throw new Error("usage: stdio-client-ab.ts OLD_ROOT NEW_ROOT [rounds] [low] [high] [sizes]");
const WORKER = join(import.meta.dir, "stdio-cpu-worker.ts");

/** Run the worker under `perf stat`: task-clock of the tree (ms) and the client's own CPU (ms). */
async function measure(root: string, kind: string, n: number): Promise<{ tree: number; client: number; loop: number }> {
  const proc = Bun.spawn(["perf", "stat", "-x,", "-e", "task-clock", "--", process.execPath, WORKER, root, kind, String(n)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`worker failed (${code}): ${err}`);
  const line = err.split("\n").find((l) => l.includes("task-clock"));
  if (!line) throw new Error(`no task-clock in perf output: ${err}`);
  const report = JSON.parse(out.trim().split("\n").at(-1)!) as { clientCpuMs: number; loopCpuMs?: number };
  return { tree: Number(line.split(",")[0]), client: report.clientCpuMs, loop: report.loopCpuMs ?? 0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sides = { old: oldRoot, new: newRoot } as const;
type Side = keyof typeof sides;
const perCall: Record<Side, { tree: number[]; client: number[]; loop: number[] }> = {
  old: { tree: [], client: [], loop: [] },
  new: { tree: [], client: [], loop: [] },
};
const startup = new Map<string, number[]>();
const extra = Number(high) - Number(low);

for (let r = 0; r < Number(rounds); r++) {
  // Alternate which side goes first, so a drift in load does not favour one.
  const order: Side[] = r % 2 === 0 ? ["old", "new"] : ["new", "old"];
  for (const side of order) {
    if (Number(high) > Number(low)) {
      const a = await measure(sides[side], "calls", Number(low));
      const b = await measure(sides[side], "calls", Number(high));
      perCall[side].tree.push(((b.tree - a.tree) / extra) * 1000);
      perCall[side].client.push(((b.client - a.client) / extra) * 1000);
      perCall[side].loop.push((b.loop / Number(high)) * 1000);
    }
    for (const size of sizes.split(",").filter(Boolean).map(Number)) {
      const s = await measure(sides[side], "servers", size);
      for (const [k, v] of [
        [`${side} ${size} tree`, s.tree],
        [`${side} ${size} client`, s.client],
      ] as const)
        startup.set(k, [...(startup.get(k) ?? []), v]);
    }
  }
  console.error(`round ${r + 1}/${rounds} done`);
}

const fmt = (xs: number[]) => `${xs.map((x) => x.toFixed(0)).join(" ")} (median ${median(xs).toFixed(0)})`;
if (extra > 0) console.log(`marginal CPU per round trip, µs (${high} − ${low} calls):`);
for (const side of extra > 0 ? (["old", "new"] as const) : []) {
  const { tree, client, loop } = perCall[side];
  console.log(`  ${side}: both processes ${fmt(tree)}; client ${fmt(client)}; client over the ${high}-call loop ${fmt(loop)}`);
}
console.log("start-up, N servers connected + one tools/list each, CPU ms:");
for (const [k, xs] of startup) console.log(`  ${k.padEnd(16)} ${fmt(xs)}`);
