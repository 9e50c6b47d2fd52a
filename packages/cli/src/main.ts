#!/usr/bin/env bun
/** The `agentd` executable: the only place that calls process.exit. */
import { exitAfterFlush } from "./exit-after-flush.ts";
import { runHiddenEntry } from "./hidden-entries.ts";
import { asksOnlyForVersion, versionText } from "./version-text.ts";

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
const code = hidden ?? (await (await import("./cli.ts")).runCli(argv));
// Every byte written reaches a slow or late pipe reader before the process exits (exit-after-flush.ts).
await exitAfterFlush(code);
