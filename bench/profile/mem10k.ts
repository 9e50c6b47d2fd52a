/**
 * Profiling aid (not part of `bun bench/run.ts`): one memory run of the idle-session figure for one server,
 * printing RSS at start and at each checkpoint. `bun bench/profile/mem10k.ts [ours|sdk|floor] [1000,10000]`
 */
import { measureMemory } from "../http/memory.ts";
import type { ServerId } from "../http/http-servers.ts";

const id = (process.argv[2] ?? "ours") as ServerId;
const checkpoints = (process.argv[3] ?? "10000").split(",").map(Number);
const run = await measureMemory(id, checkpoints);
console.log(
  JSON.stringify({ id, startMb: +run.startMb.toFixed(1), atMb: run.atMb.map((m) => +m.toFixed(1)), openSeconds: run.openSeconds }),
);
