/**
 * Profiling aid for the idle-session memory figure (not part of `bun bench/run.ts`): opens N idle sessions
 * on one server child and prints, per object type, how many more objects its JS heap holds per session
 * than at start, plus RSS and heap sizes. Shows where a server spends its per-session memory.
 *
 *   bun bench/profile/idle-heap.ts [ours|sdk|floor] [N]
 */
import { join } from "node:path";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit } from "../lib/proc.ts";
import { startServer, type ServerId } from "../http/http-servers.ts";

const id = (process.argv[2] ?? "ours") as ServerId;
const n = Number(process.argv[3] ?? 2000);

type Heap = {
  rssMb: number;
  heapUsedMb: number;
  heapSizeMb?: number;
  heapCapacityMb?: number;
  extraMemoryMb?: number;
  externalMb: number;
  objectCount?: number;
  types?: Record<string, number>;
};
const { child: server, port } = await startServer(id, "sse", n + 100);
const client = startChild(withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "idle-sessions.ts"), String(port), String(n), "64"]));
try {
  server.send("heap");
  const before = await server.next<Heap>();
  await client.next(180_000);
  server.send("heap");
  const after = await server.next<Heap>();
  const per = (a: number | undefined, b: number | undefined) => ((a ?? 0) - (b ?? 0)) / n;
  console.log(
    `${id}, ${n} idle sessions, per session: RSS ${(per(after.rssMb, before.rssMb) * 1024).toFixed(1)} kB, JS heap ${(per(after.heapSizeMb ?? after.heapUsedMb, before.heapSizeMb ?? before.heapUsedMb) * 1024).toFixed(1)} kB (capacity ${(per(after.heapCapacityMb, before.heapCapacityMb) * 1024).toFixed(1)} kB, extra ${(per(after.extraMemoryMb, before.extraMemoryMb) * 1024).toFixed(1)} kB), objects ${per(after.objectCount, before.objectCount).toFixed(1)}`,
  );
  const types = Object.keys(after.types ?? {})
    .map((t) => [t, per(after.types?.[t], before.types?.[t])] as const)
    .filter(([, d]) => d >= 0.5)
    .sort((a, b) => b[1] - a[1]);
  for (const [t, d] of types) console.log(`  ${d.toFixed(1).padStart(6)}  ${t}`);
} finally {
  await client.stop();
  await server.stop();
}
