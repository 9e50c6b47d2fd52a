/**
 * The `__subagent` hidden entry's modules, imported statically here so that the bundler keeps only what a
 * subagent child runs. A dynamic `import("@agentd/sdk/agent")` would keep every export of that entry in one
 * chunk shared with the `demo` command's static imports, and `agentd demo` would load the triggers, the
 * supervisor and the checkpoint at start for nothing.
 */
import { createModel } from "@agentd/adapters";
import { runSubagentChild } from "@agentd/sdk/agent";
import { stderrLogger } from "./telemetry.ts";

/** Run this process as a subagent child: its whole configuration arrives over the control channel on fd 3. */
export function runSubagent(): Promise<number> {
  return runSubagentChild({ createModel, logger: stderrLogger() });
}
