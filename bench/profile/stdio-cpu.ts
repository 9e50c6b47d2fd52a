/**
 * Profiling aid (not part of `bun bench/run.ts`): CPU per sequential echo `tools/call` of agentd's stdio
 * client and of its agentd server child, each measured on its own (the client with `process.cpuUsage()`, the
 * child from `/proc/PID/stat`, 10 ms ticks), after a warm-up. Run it pinned as the stdio benchmark is:
 *
 *   taskset -c 1 bun bench/profile/stdio-cpu.ts [CALLS=10000]
 */
import { readFileSync } from "node:fs";
import { connect } from "../stdio/clients.ts";

const calls = Number(process.argv[2] ?? 10_000);
const caller = await connect("agentd", "agentd");
/** User + system CPU of `pid` in µs (`/proc/PID/stat` fields 14 and 15, in USER_HZ = 100 ticks). */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};
const child = Number(readFileSync(`/proc/self/task/${process.pid}/children`, "utf8").trim().split(/\s+/)[0]);
try {
  for (let i = 0; i < 3_000; i++) await caller.call();
  const before = process.cpuUsage();
  const childBefore = cpuOf(child);
  for (let i = 0; i < calls; i++) await caller.call();
  const used = process.cpuUsage(before);
  console.log(JSON.stringify({ clientCpuUs: (used.user + used.system) / calls, serverCpuUs: (cpuOf(child) - childBefore) / calls }));
} finally {
  await caller.close();
}
process.exit(0);
