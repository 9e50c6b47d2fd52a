/**
 * Profiling aid (not part of `bun bench/run.ts`): the idle-session memory run of `mem10k.ts` for any build
 * of the benchmark's server — a `.ts`/`.js` file run with `bun`, or a compiled binary run as it is — so a
 * bundle (`bun build --target=bun`) or a compiled binary (`bun build --compile --bytecode`, as the CLI
 * ships) can be measured against the sources. Prints RSS after a settled full GC at start and at each
 * checkpoint, and how the last of them splits (`/proc/PID/smaps_rollup`): `anonMb`, the process's own
 * memory (heaps, sources, bytecode), and `fileMb`, the pages of mapped files it touched — mostly the `bun`
 * executable's own code, clean and shared with every other Bun process.
 *
 *   bun bench/profile/mem-server.ts FILE|BINARY [1000,10000]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit } from "../lib/proc.ts";
import { settledRssKb } from "../http/http-servers.ts";

const [file = join(BENCH_DIR, "http", "servers", "agentd-http-server.ts"), list = "10000"] = process.argv.slice(2);
const checkpoints = list.split(",").map(Number);

/** Anonymous and file-backed resident memory of `pid`, MB. */
function split(pid: number): { anonMb: number; fileMb: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
  const anon = kb("Anonymous");
  return { anonMb: +(anon / 1024).toFixed(1), fileMb: +((kb("Rss") - anon) / 1024).toFixed(1) };
}
const command = /\.(ts|js)$/.test(file) ? [BUN, file] : [file];
const server = startChild(withRaisedFdLimit([...command, "sse", String((checkpoints.at(-1) ?? 0) + 100)]));
try {
  const { port } = await server.next<{ port: number }>(30_000);
  const startMb = (await settledRssKb(server)) / 1024;
  const atStart = split(server.pid);
  const client = startChild(withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "idle-sessions.ts"), String(port), list, "64"]));
  try {
    const atMb: number[] = [];
    for (const target of checkpoints) {
      const step = await client.next<{ open: number }>(180_000);
      if (step.open !== target) throw new Error(`${step.open} of ${target} idle sessions open`);
      atMb.push((await settledRssKb(server)) / 1024);
      client.send("next");
    }
    const atEnd = split(server.pid);
    console.log(JSON.stringify({ file, startMb: +startMb.toFixed(1), atMb: atMb.map((m) => +m.toFixed(1)), atStart, atEnd }));
  } finally {
    await client.stop();
  }
} finally {
  await server.stop();
}
