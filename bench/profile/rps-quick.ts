/**
 * Profiling aid (not part of `bun bench/run.ts`): tools/call requests/s of agentd's HTTP server in JSON and
 * SSE mode and of the bare floor, interleaved, with the load generator the benchmark uses; with
 * `RPS_QUICK_SDK=1` the official SDK's server under Bun.serve in both modes as well (the peer of the targets);
 * with `RPS_QUICK_FLOORS=1` the reference floors of the benchmark too (the SSE floor, and the floor with the
 * required reads in both modes).
 * `bun bench/profile/rps-quick.ts [rounds]`
 */
import { ensureLoadGenerator } from "../http/load.ts";
import { measureRps } from "../http/rps.ts";

const rounds = Number(process.argv[2] ?? 3);
const gen = await ensureLoadGenerator(() => {}, true);
const o = { connections: 64, seconds: 2, warmupSeconds: 1 };
const sdk = process.env.RPS_QUICK_SDK === "1";
const floors = process.env.RPS_QUICK_FLOORS === "1";
const rows: Record<string, number[]> = sdk
  ? { floor: [], json: [], sse: [], "sdk-json": [], "sdk-sse": [] }
  : { floor: [], json: [], sse: [] };
const references = ["floor-sse", "floor-reads", "floor-reads-sse"] as const;
if (floors) for (const id of references) rows[id] = [];
for (let i = 0; i < rounds; i++) {
  rows.floor!.push((await measureRps(gen, "floor", "json", o)).rps);
  if (floors) for (const id of references) rows[id]!.push((await measureRps(gen, id, "json", o)).rps);
  rows.json!.push((await measureRps(gen, "ours", "json", o)).rps);
  rows.sse!.push((await measureRps(gen, "ours", "sse", o)).rps);
  if (sdk) {
    rows["sdk-json"]!.push((await measureRps(gen, "sdk", "json", o)).rps);
    rows["sdk-sse"]!.push((await measureRps(gen, "sdk", "sse", o)).rps);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const floor = median(rows.floor!);
for (const [k, xs] of Object.entries(rows))
  console.log(
    k.padEnd(15),
    xs.map((x) => Math.round(x)).join(" "),
    "median",
    Math.round(median(xs)),
    "vs floor",
    (median(xs) / floor).toFixed(3),
    ...(sdk && (k === "json" || k === "sse") ? ["vs SDK", (median(xs) / median(rows[`sdk-${k}`]!)).toFixed(2)] : []),
  );
