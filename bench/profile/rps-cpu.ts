/**
 * Profiling aid (not part of `bun bench/run.ts`): the HTTP server's own CPU time per tools/call request, for
 * judging a change while other work shares the machine (requests/s then says little; the CPU a request
 * costs the server moves much less). Each run starts a fresh server child, opens one session per
 * connection, warms up, then drives it with the benchmark's load generator and divides the child's CPU
 * time (utime + stime from /proc) by the requests answered. Sides are checkouts of this repository (e.g.
 * the current one and `git worktree add /tmp/old main`), run interleaved, round by round; the bare
 * `Bun.serve` floor is measured in the same loop.
 *
 * `bun bench/profile/rps-cpu.ts [rounds] [seconds] [dir…]` (default: 5 rounds, 3 s, this checkout).
 * `RPS_CPU_PROF=DIR` also writes a `bun --cpu-prof` profile of every agentd server child into DIR (sampled every
 * `RPS_CPU_PROF_INTERVAL` µs if set), and
 * `RPS_CPU_MODES=sse` measures one response mode only, and `RPS_CPU_SERVER=PATH` (relative to each checkout)
 * measures another server script with the same arguments (e.g. `bench/profile/transport-only-server.ts`).
 * A side written `DIR::SCRIPT` measures that side's own server script (relative to DIR), so two servers of one
 * checkout can be alternated: `bun bench/profile/rps-cpu.ts 8 3 . .::bench/profile/minimal-mcp-server.ts`;
 * `DIR::SCRIPT::K=V K2=V2` also sets that side's server environment.
 * `RPS_CPU_FLOORS=all` measures, besides the bare JSON floor, the SSE floor (`bun-floor.ts sse`) and the
 * floor with the required reads and the least MCP server in both modes (`floor-reads.ts`, `least-mcp.ts`
 * `json|sse`), each round, from this checkout.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { drive, ensureLoadGenerator } from "../http/load.ts";
import { isEchoAnswer, POST_HEADERS, toolsCall } from "../http/mcp-session.ts";
import { RawConnection } from "../http/raw-http.ts";
import { prepareSessions } from "../http/rps.ts";
import { BUN, ROOT, startChild, withRaisedFdLimit } from "../lib/proc.ts";

const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 3);
const dirs = process.argv.length > 4 ? process.argv.slice(4) : [ROOT];
const connections = 64;
const gen = await ensureLoadGenerator(() => {}, false);
/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const HZ = 100;

function cpuSeconds(pid: number): number {
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) / HZ;
}

/** One run: µs of server CPU per answered request. */
async function run(
  script: string,
  args: string[],
  floor: boolean,
  profiled = !floor,
  sideEnv: Record<string, string> = {},
): Promise<number> {
  const prof = process.env.RPS_CPU_PROF;
  const interval = process.env.RPS_CPU_PROF_INTERVAL ? ` --cpu-prof-interval ${process.env.RPS_CPU_PROF_INTERVAL}` : "";
  const env: Record<string, string> =
    prof && profiled ? { ...sideEnv, BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${prof}${interval}` } : sideEnv;
  const child = startChild(withRaisedFdLimit([BUN, script, ...args]), { env });
  try {
    const { port } = await child.next<{ port: number }>(30_000);
    let sids: string[] = [];
    if (floor) {
      const conn = await RawConnection.open(port);
      const r = await conn.request("POST", "/mcp", POST_HEADERS, toolsCall(1));
      conn.close();
      if (!isEchoAnswer(r)) throw new Error(`floor answered ${r.status}`);
    } else sids = await prepareSessions(port, connections);
    await drive(gen, port, connections, 1, sids);
    const before = cpuSeconds(child.pid);
    const t0 = performance.now();
    const r = await drive(gen, port, connections, seconds, sids);
    const cpu = cpuSeconds(child.pid) - before;
    const requests = r.rps * ((performance.now() - t0) / 1000);
    if (r.errors > 0) throw new Error(`${r.errors} errors`);
    return (cpu * 1e6) / requests;
  } finally {
    await child.stop();
  }
}

const rows = new Map<string, number[]>();
const add = (k: string, v: number) => rows.set(k, [...(rows.get(k) ?? []), v]);
const servers = join(ROOT, "bench/http/servers");
const floors: Array<[string, string, string[], boolean]> =
  process.env.RPS_CPU_FLOORS === "all"
    ? [
        ["floor", "bun-floor.ts", [], true],
        ["floor-sse", "bun-floor.ts", ["sse"], true],
        ["reads-json", "floor-reads.ts", ["json"], false],
        ["reads-sse", "floor-reads.ts", ["sse"], false],
        ["least-json", "least-mcp.ts", ["json"], false],
        ["least-sse", "least-mcp.ts", ["sse"], false],
      ]
    : [["floor", "bun-floor.ts", [], true]];
for (let i = 0; i < rounds; i++) {
  for (const [name, file, args, bare] of floors) add(name, await run(join(servers, file), args, bare, false));
  for (const [j, side] of dirs.entries()) {
    const [dir = ROOT, script = process.env.RPS_CPU_SERVER ?? "bench/http/servers/agentd-http-server.ts", vars = ""] = side.split("::");
    const sideEnv = Object.fromEntries(
      vars
        .split(" ")
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
    );
    for (const mode of (process.env.RPS_CPU_MODES ?? "json,sse").split(","))
      add(`${j}:${mode}`, await run(join(dir, script), [mode, "1024"], false, true, sideEnv));
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const floor = median(rows.get("floor")!);
for (const [j, dir] of dirs.entries()) console.log(`${j}: ${dir}`);
for (const [k, xs] of rows)
  console.log(
    k.padEnd(10),
    "µs CPU/request",
    xs.map((x) => x.toFixed(1)).join(" "),
    "median",
    median(xs).toFixed(1),
    "floor/this",
    (floor / median(xs)).toFixed(3),
  );
