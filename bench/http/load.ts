/**
 * The load generator: wrk with `tools-call.lua`, installed with apt-get when missing; when that fails, the
 * Bun fallback (`load-gen.ts`). Either way its ceiling on this machine (against the canned server) is
 * measured and reported beside the figures.
 */
import { join } from "node:path";
import { BENCH_DIR, BUN, runToEnd, which } from "../lib/proc.ts";

/** Which generator runs, and how to describe it. */
export interface LoadGenerator {
  kind: "wrk" | "bun";
  describe: string;
}

/**
 * wrk if present; else try `apt-get install -y wrk` (after `apt-get update` if needed); else the Bun fallback.
 * `BENCH_LOAD_GENERATOR=bun` forces the fallback (to check it, or to compare).
 */
export async function ensureLoadGenerator(log: (line: string) => void, install = true): Promise<LoadGenerator> {
  const bun: LoadGenerator = { kind: "bun", describe: `the Bun fallback load generator (bench/http/load-gen.ts, Bun ${Bun.version})` };
  if (process.env.BENCH_LOAD_GENERATOR === "bun") return bun;
  if (!which("wrk") && install && which("apt-get")) {
    log("http: wrk is missing; installing it with apt-get");
    let r = await runToEnd(["apt-get", "install", "-y", "wrk"], { env: { DEBIAN_FRONTEND: "noninteractive" }, timeoutMs: 180_000 });
    if (r.code !== 0) {
      await runToEnd(["apt-get", "update"], { timeoutMs: 180_000 });
      r = await runToEnd(["apt-get", "install", "-y", "wrk"], { env: { DEBIAN_FRONTEND: "noninteractive" }, timeoutMs: 180_000 });
    }
    if (r.code !== 0)
      log(`http: apt-get could not install wrk (${r.stderr.trim().split("\n").at(-1) ?? ""}); using the Bun load generator`);
  }
  if (which("wrk")) {
    const v = await runToEnd(["wrk", "--version"]);
    const version = (v.stdout + v.stderr).match(/wrk (\S+)/)?.[1];
    return { kind: "wrk", describe: version ? `wrk ${version}` : "wrk" };
  }
  return bun;
}

/** The outcome of one load run. */
export interface LoadRun {
  rps: number;
  /** Responses that were not 2xx/3xx, plus socket errors. */
  errors: number;
}

/** Drive `port` with `connections` clients for `seconds`, round-robin over `sessions`. */
export async function drive(gen: LoadGenerator, port: number, connections: number, seconds: number, sessions: string[]): Promise<LoadRun> {
  if (gen.kind === "bun") {
    const r = await runToEnd(
      [
        BUN,
        join(BENCH_DIR, "http", "load-gen.ts"),
        String(port),
        String(connections),
        String(Math.round(seconds * 1000)),
        sessions.join(","),
      ],
      {
        timeoutMs: (seconds + 60) * 1000,
      },
    );
    if (r.code !== 0) throw new Error(`load-gen failed: ${r.stderr.slice(-1000)}`);
    return JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as LoadRun;
  }
  const threads = Math.min(2, connections);
  // wrk takes whole seconds only ("-d0.5s" prints its usage and exits 1): shorter runs take one second.
  const args = [
    "wrk",
    `-t${threads}`,
    `-c${connections}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    "--timeout",
    "10s",
    "-s",
    join(BENCH_DIR, "http", "tools-call.lua"),
    `http://127.0.0.1:${port}/mcp`,
  ];
  const r = await runToEnd(sessions.length ? [...args, "--", sessions.join(",")] : args, { timeoutMs: (seconds + 60) * 1000 });
  if (r.code !== 0) throw new Error(`wrk failed (${r.code}): ${r.stderr.slice(-1000)}`);
  return parseWrk(r.stdout);
}

/** Requests/sec and error counts from wrk's report. */
export function parseWrk(out: string): LoadRun {
  const rps = Number(out.match(/Requests\/sec:\s+([\d.]+)/)?.[1]);
  if (!Number.isFinite(rps)) throw new Error(`no Requests/sec in wrk output: ${out.slice(0, 500)}`);
  const non2xx = Number(out.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0);
  const socket = out.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  const requests = Number(out.match(/(\d+) requests in/)?.[1] ?? 0);
  const errors = non2xx + socketErrors;
  // Count only answered requests: a server that fails fast must not look fast.
  return { rps: requests > 0 ? rps * Math.max(0, 1 - non2xx / requests) : rps, errors };
}
