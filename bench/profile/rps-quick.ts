/**
 * Profiling aid (not part of `bun bench/run.ts`): tools/call requests/s of agentd's HTTP server in JSON and
 * SSE mode and of the bare floor, interleaved, with the load generator the benchmark uses.
 * `bun bench/profile/rps-quick.ts [rounds]`
 */
import { ensureLoadGenerator } from "../http/load.ts";
import { measureRps } from "../http/rps.ts";

const rounds = Number(process.argv[2] ?? 3);
const gen = await ensureLoadGenerator(() => {}, true);
const o = { connections: 64, seconds: 2, warmupSeconds: 1 };
const rows: Record<string, number[]> = { floor: [], json: [], sse: [] };
for (let i = 0; i < rounds; i++) {
  rows.floor!.push((await measureRps(gen, "floor", "json", o)).rps);
  rows.json!.push((await measureRps(gen, "ours", "json", o)).rps);
  rows.sse!.push((await measureRps(gen, "ours", "sse", o)).rps);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const floor = median(rows.floor!);
for (const [k, xs] of Object.entries(rows))
  console.log(
    k.padEnd(6),
    xs.map((x) => Math.round(x)).join(" "),
    "median",
    Math.round(median(xs)),
    "vs floor",
    (median(xs) / floor).toFixed(3),
  );
