/**
 * Profiling aid (not part of `bun bench/run.ts`): a stdio pair of two trees, old against new, interleaved,
 * by what load moves least — the CPU per sequential echo tools/call of the client and of the server child
 * (their threads' run time) — and by the p50 latency, each pinned to CPU 1 as the stdio benchmark is. Each
 * round runs every PAIR (see `stdio-ab-worker.ts`: agentd, raw, client, server, min) on each tree, in an
 * order that alternates, and prints medians over the rounds with the load average at the start and end.
 *
 *   bun bench/profile/stdio-ab.ts OLD_ROOT NEW_ROOT [ROUNDS=5] [CALLS=8000] [PAIRS=agentd,raw]
 *
 * `WARMUP=bench` in the environment times the calls the stdio benchmark times (see `stdio-ab-worker.ts`).
 *
 * The raw echo does not depend on the tree (the same client and child code), so its two columns show the
 * noise between two measurements of one thing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [oldRoot = "", newRoot = "", rounds = "5", calls = "8000", pairs = "agentd,raw"] = process.argv.slice(2);
if (!oldRoot || !newRoot) throw new Error("usage: stdio-ab.ts OLD_ROOT NEW_ROOT [ROUNDS] [CALLS] [PAIRS]");
const WORKER = join(import.meta.dir, "stdio-ab-worker.ts");
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

interface Sample {
  p50Us: number;
  clientUs: number;
  serverUs: number;
  clientMainUs: number;
  serverMainUs: number;
}

async function measure(root: string, pair: string): Promise<Sample> {
  const proc = Bun.spawn(["taskset", "-c", "1", process.execPath, WORKER, root, pair, calls], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`worker ${pair} failed (${code}): ${err.slice(-2000)}`);
  return JSON.parse(out.trim().split("\n").at(-1) as string) as Sample;
}

const sides = { old: oldRoot, new: newRoot } as const;
type Side = keyof typeof sides;
const samples = new Map<string, Sample[]>();
const startLoad = loadavg();
for (let r = 0; r < Number(rounds); r++) {
  const order: Side[] = r % 2 === 0 ? ["old", "new"] : ["new", "old"];
  for (const pair of pairs.split(",")) {
    for (const side of order) {
      const key = `${pair} ${side}`;
      const s = await measure(sides[side], pair);
      (samples.get(key) ?? samples.set(key, []).get(key))?.push(s);
      console.error(
        `round ${r + 1} ${key}: p50 ${s.p50Us.toFixed(1)} µs, client ${s.clientUs.toFixed(1)}, server ${s.serverUs.toFixed(1)} (load ${loadavg()})`,
      );
    }
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
console.log(`${rounds} rounds of ${calls} calls, load ${startLoad} → ${loadavg()}; medians (µs per call):`);
console.log("| pair | p50 | client CPU | server CPU | both | client main thread | server main thread |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const [key, xs] of samples) {
  const p50 = median(xs.map((x) => x.p50Us));
  const c = median(xs.map((x) => x.clientUs));
  const sv = median(xs.map((x) => x.serverUs));
  const both = median(xs.map((x) => x.clientUs + x.serverUs));
  const cm = median(xs.map((x) => x.clientMainUs));
  const sm = median(xs.map((x) => x.serverMainUs));
  console.log(
    `| ${key} | ${p50.toFixed(1)} | ${c.toFixed(1)} | ${sv.toFixed(1)} | ${both.toFixed(1)} | ${cm.toFixed(1)} | ${sm.toFixed(1)} |`,
  );
}
// Each round ran old and new of a pair back to back: count the rounds where new measured lower.
console.log("\nrounds where new < old (p50 / client CPU / server CPU / client main thread / server main thread):");
for (const pair of pairs.split(",")) {
  const olds = samples.get(`${pair} old`) ?? [];
  const news = samples.get(`${pair} new`) ?? [];
  const lower = (f: (s: Sample) => number) => news.filter((n, i) => olds[i] !== undefined && f(n) < f(olds[i] as Sample)).length;
  const counts = [
    lower((s) => s.p50Us),
    lower((s) => s.clientUs),
    lower((s) => s.serverUs),
    lower((s) => s.clientMainUs),
    lower((s) => s.serverMainUs),
  ];
  console.log(`${pair}: ${counts.join(" / ")} of ${news.length}`);
}
