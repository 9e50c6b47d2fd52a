/**
 * Test fixture: starts one stdio "server" per argument (each a shell command line, run as `sh -c LINE`),
 * prints `ready <watchdog pid>` on stdout once all are spawned, and waits to be killed. Used to check that
 * `kill -9` of this process takes every process it started, and their descendants, with it.
 * Flags before the lines: `--released PID` registers PID with the watchdog and releases it again (it must
 * survive us); `--exit` closes every server after `ready` and lets the process end by itself (nothing
 * else holds the event loop: the watchdog must not either); `--close` closes every server after `ready`,
 * prints `closed`, and waits to be killed.
 */
import { deathWatchPid, killOnOurDeath } from "../_death-watch.ts";
import { StdioChildTransport } from "../stdio-child.ts";
import { fixtureSpawnApi } from "./spawn-api.ts";

const args = process.argv.slice(2);
let exit = false;
let close = false;
while (args[0]?.startsWith("--")) {
  const flag = args.shift();
  if (flag === "--exit") exit = true;
  if (flag === "--close") close = true;
  if (flag === "--released") killOnOurDeath({ pid: Number(args.shift()) }).release();
}
const transports: StdioChildTransport[] = [];
for (const [i, line] of args.entries()) {
  const t = new StdioChildTransport({
    name: `s${i}`,
    command: "/bin/sh",
    args: ["-c", line],
    env: { PATH: process.env.PATH ?? "" },
    spawnApi: fixtureSpawnApi(),
  });
  await t.start();
  transports.push(t);
}
process.stdout.write(`ready ${deathWatchPid()}\n`);
if (exit || close) for (const t of transports) await t.close();
if (close) process.stdout.write("closed\n");
if (!exit) setInterval(() => {}, 1 << 30);
