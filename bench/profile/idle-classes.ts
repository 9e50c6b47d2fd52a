/**
 * Profiling aid for the idle-session memory figure (not part of `bun bench/run.ts`): what an idle session
 * holds in the JS heap, by class, in bytes. Starts a benchmark server file (default: agentd's, of this tree;
 * pass another tree's to compare) with `idle-classes-preload.ts`, takes a heap snapshot before and after N
 * idle sessions (`../http/idle-sessions.ts`: initialize, initialized, a GET stream left open), and prints the
 * objects and bytes per session of each class that grew, and the totals. Finer than `idle-heap.ts`, whose
 * counts lump every plain and class-made object together as `Object`.
 *
 *   bun bench/profile/idle-classes.ts [SERVER_FILE] [N]
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit } from "../lib/proc.ts";

const [file = join(BENCH_DIR, "http", "servers", "agentd-http-server.ts"), count = "2000"] = process.argv.slice(2);
const n = Number(count);
const out = join(tmpdir(), `idle-classes-${process.pid}.json`);
const preload = join(import.meta.dir, "idle-classes-preload.ts");
const server = startChild(withRaisedFdLimit([BUN, "--preload", preload, file, "sse", String(n + 100)]), { env: { IDLE_CLASSES_OUT: out } });

/** Ask the server for a snapshot summary and wait for it. */
async function snapshot(): Promise<Record<string, [number, number]>> {
  rmSync(out, { force: true });
  process.kill(server.pid, "SIGUSR2");
  for (let i = 0; i < 600 && !existsSync(out); i++) await Bun.sleep(100);
  await Bun.sleep(200); // the write is one call; let it finish
  return JSON.parse(readFileSync(out, "utf8"));
}

try {
  const { port } = await server.next<{ port: number }>(30_000);
  const before = await snapshot();
  const client = startChild(withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "idle-sessions.ts"), String(port), String(n), "64"]));
  try {
    await client.next(180_000);
    const after = await snapshot();
    const rows = Object.keys(after)
      .map((c) => [c, ((after[c]?.[0] ?? 0) - (before[c]?.[0] ?? 0)) / n, ((after[c]?.[1] ?? 0) - (before[c]?.[1] ?? 0)) / n] as const)
      .filter(([, objects, bytes]) => objects >= 0.5 || bytes >= 8)
      .sort((a, b) => b[2] - a[2]);
    const total = (k: 0 | 1) =>
      (Object.values(after).reduce((s, r) => s + r[k], 0) - Object.values(before).reduce((s, r) => s + r[k], 0)) / n;
    console.log(`${file}, ${n} idle sessions, per session: ${total(0).toFixed(1)} objects, ${total(1).toFixed(0)} bytes`);
    for (const [c, objects, bytes] of rows) console.log(`  ${bytes.toFixed(0).padStart(6)} B  ${objects.toFixed(2).padStart(6)}  ${c}`);
  } finally {
    await client.stop();
  }
} finally {
  await server.stop();
  rmSync(out, { force: true });
}
