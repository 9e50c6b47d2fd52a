#!/usr/bin/env bun
/** The `agentd` executable: the only place that calls process.exit. */
import { exitAfterFlush } from "./exit-after-flush.ts";
import { runHiddenEntry } from "./hidden-entries.ts";
import { asksOnlyForVersion, versionText } from "./version-text.ts";

// The compiled binary starts with the JIT reluctant (compile-flags.ts): start-up code runs once. A process
// still alive a second later (a server, a watch, a long run) gets the normal policy back.
setTimeout(() => Bun.unsafe.setJITPolicy(1), 1000).unref();

const argv = process.argv.slice(2);
// A version probe (health checks, install scripts) prints without loading the commands.
const versionOnly = asksOnlyForVersion(argv);
if (versionOnly) {
  process.stdout.write(versionText(versionOnly.json));
  await exitAfterFlush(0);
}
const hidden = await runHiddenEntry(argv);
// The CLI is loaded only when no hidden entry ran: a copy of this program started as the demo's MCP server
// (or a subagent) does not pay for initialising every command, which is on the critical path of `agentd demo`.
// The scripted demo's MCP server (a copy of this program) comes up while the CLI loads; see prelaunch-server.ts.
// (Loaded only for `demo`, so the other commands and the version probe do not load the transport first.)
const prelaunch = hidden === undefined && argv[0] === "demo" ? await import("./demo/prelaunch-server.ts") : undefined;
const prelaunched = prelaunch?.prelaunchDemoServer(argv) === true;
const code = hidden ?? (await (await import("./cli.ts")).runCli(argv));
// Not taken when the command failed before connecting (e.g. a mistake in its arguments).
if (prelaunched) await prelaunch?.discardPrelaunchedServers();
// Every byte written reaches a slow or late pipe reader before the process exits (exit-after-flush.ts).
await exitAfterFlush(code);
