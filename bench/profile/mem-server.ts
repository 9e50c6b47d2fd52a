/**
 * Profiling aid (not part of `bun bench/run.ts`): the idle-session memory run of `mem10k.ts` for any build
 * of the benchmark's server — a `.ts`/`.js` file run with `bun`, or a compiled binary run as it is — so a
 * bundle (`bun build --target=bun`) or a compiled binary (`bun build --compile --bytecode`, as the CLI
 * ships) can be measured against the sources. Prints RSS after a settled full GC at start and at each
 * checkpoint.
 *
 *   bun bench/profile/mem-server.ts FILE|BINARY [1000,10000]
 */
import { join } from "node:path";
import { BENCH_DIR, BUN, startChild, withRaisedFdLimit } from "../lib/proc.ts";
import { settledRssKb } from "../http/http-servers.ts";

const [file = join(BENCH_DIR, "http", "servers", "agentd-http-server.ts"), list = "10000"] = process.argv.slice(2);
const checkpoints = list.split(",").map(Number);
const command = /\.(ts|js)$/.test(file) ? [BUN, file] : [file];
const server = startChild(withRaisedFdLimit([...command, "sse", String((checkpoints.at(-1) ?? 0) + 100)]));
try {
  const { port } = await server.next<{ port: number }>(30_000);
  const startMb = (await settledRssKb(server)) / 1024;
  const client = startChild(withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "idle-sessions.ts"), String(port), list, "64"]));
  try {
    const atMb: number[] = [];
    for (const target of checkpoints) {
      const step = await client.next<{ open: number }>(180_000);
      if (step.open !== target) throw new Error(`${step.open} of ${target} idle sessions open`);
      atMb.push((await settledRssKb(server)) / 1024);
      client.send("next");
    }
    console.log(JSON.stringify({ file, startMb: +startMb.toFixed(1), atMb: atMb.map((m) => +m.toFixed(1)) }));
  } finally {
    await client.stop();
  }
} finally {
  await server.stop();
}
