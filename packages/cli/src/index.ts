/** The agentd CLI as a library: `runCli(argv)` resolves to an exit code. */
export { runCli, usageOf, describeError, type CliIo } from "./cli.ts";
export { EXIT, exitCodeFor } from "./exit-codes.ts";
export { stderrLogger } from "./telemetry.ts";
