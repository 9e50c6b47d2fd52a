#!/usr/bin/env bun
/** The `agentd` executable: the only place that calls process.exit. */
import { runCli } from "./cli.ts";
import { runHiddenEntry } from "./hidden-entries.ts";

const argv = process.argv.slice(2);
const hidden = await runHiddenEntry(argv);
const code = hidden ?? (await runCli(argv));
// Let stdout/stderr drain before exiting (a piped stdout may still hold the result).
await new Promise<void>((resolve) => (process.stdout.write("", () => resolve())));
process.exit(code);
