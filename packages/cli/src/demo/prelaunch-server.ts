/**
 * `agentd demo` spawns its bundled MCP server before the rest of the CLI is loaded: the server is a second
 * copy of this program, whose start-up is most of the demo's wall time, and loading the CLI (commands, the
 * SDK, the model adapters) takes about as long. Both now happen at once; the agent built later takes the
 * running process (the SDK's `prelaunchStdioServer`). Only the scripted demo does this: with a real model
 * (`--intelligence`, `AGENT_INTELLIGENCE`) or `--help` the server is started the ordinary way, or not at all.
 */
import { discardPrelaunchedServers, prelaunchStdioServer, selfCommand } from "@agentd/sdk/transport";
import { HIDDEN } from "../hidden-entries.ts";
import { lateLogger } from "./late-logger.ts";

/** The name of the bundled server in the demo's configuration. */
export const DEMO_SERVER = "demo";

/** The command line of the bundled server: this same program, at its hidden entry. */
export function demoServerCommand(): { command: string; args: string[] } {
  const self = selfCommand();
  return { command: self.command, args: [...self.args, HIDDEN.demoServer] };
}

/** Where the prelaunched server's transport logs; `agentd demo` binds it to its own logger. */
export const demoServerLogger = lateLogger();

/** True when `argv` (after the program name) runs the scripted demo. */
export function runsScriptedDemo(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (argv[0] !== "demo" || env.AGENT_INTELLIGENCE) return false;
  return !argv.some((arg) => arg === "-h" || arg === "--help" || arg === "--intelligence" || arg.startsWith("--intelligence="));
}

/** Spawn the demo's MCP server now when `argv` runs the scripted demo; true if it did. */
export function prelaunchDemoServer(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  if (!runsScriptedDemo(argv, env)) return false;
  void prelaunchStdioServer({ name: DEMO_SERVER, ...demoServerCommand(), logger: demoServerLogger.child({ server: DEMO_SERVER }) });
  return true;
}

/**
 * Stop a server spawned ahead that no agent took (the command failed before connecting). Re-exported here so
 * main.ts reaches it through this module's static import: a dynamic `import("@agentd/sdk/transport")`
 * would keep that whole entry, every export, in a chunk the demo loads.
 */
export { discardPrelaunchedServers };
