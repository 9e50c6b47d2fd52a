/**
 * The agentd CLI as a pure function: `runCli(argv)` resolves to an exit code and never calls process.exit
 * (only main.ts does). A user's mistake is one clear line on stderr, never a stack trace.
 */
import { AgentdError } from "@agentd/sdk";
import { type CommandDef, renderUsage, runCommand } from "citty";
import { commands, rootCommand } from "./commands/index.ts";
import { EXIT, exitCodeFor } from "./exit-codes.ts";

/** Where the CLI writes. Tests pass their own. */
export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIo: CliIo = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) };

/** Find the (sub)command named by the leading positional arguments. */
function resolveCommand(argv: string[]): { cmd: CommandDef<any>; parent?: CommandDef<any>; path: string[] } {
  let cmd: CommandDef<any> = rootCommand;
  let parent: CommandDef<any> | undefined;
  const path: string[] = [];
  for (const arg of argv) {
    if (arg.startsWith("-")) break;
    const subs = (cmd.subCommands ?? {}) as Record<string, CommandDef<any>>;
    const next = subs[arg];
    if (!next) break;
    parent = cmd;
    cmd = next;
    path.push(arg);
  }
  return { cmd, ...(parent ? { parent } : {}), path };
}

/** Usage text of a command, with its examples. */
export async function usageOf(argv: string[]): Promise<string> {
  const { cmd, parent, path } = resolveCommand(argv);
  const usage = await renderUsage(cmd, parent);
  const examples = commands[path.join(" ")]?.examples ?? [];
  return examples.length ? `${usage}\n\nExamples:\n\n${examples.map((e) => `  ${e}`).join("\n")}\n` : `${usage}\n`;
}

/** Run the CLI. Resolves to the process exit code. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h") || argv.length === 0) {
    io.stdout(await usageOf(argv.filter((a) => a !== "--help" && a !== "-h")));
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) argv = ["version"];
  const { path } = resolveCommand(argv);
  if (path.length === 0) {
    io.stderr(`agentd: unknown command '${argv[0]}'. Run 'agentd --help' to see the commands.\n`);
    return EXIT.usage;
  }
  try {
    const { result } = await runCommand(rootCommand, { rawArgs: argv });
    return typeof result === "number" ? result : EXIT.ok;
  } catch (error) {
    const code = exitCodeFor(error);
    io.stderr(`agentd: ${describeError(error)}\n`);
    if (code === EXIT.usage && !(AgentdError.isInstance(error) && error.code === "E_CONFIG_INVALID"))
      io.stderr(`Run 'agentd ${path.join(" ")} --help' for usage.\n`);
    return code;
  }
}

/** One line for a person. Unexpected errors keep their message; the stack only with AGENT_DEBUG=1. */
export function describeError(error: unknown): string {
  if (AgentdError.isInstance(error)) return error.message;
  const name = (error as { name?: string })?.name;
  if (name === "CLIError") return (error as Error).message;
  if (process.env.AGENT_DEBUG === "1" && error instanceof Error && error.stack) return error.stack;
  return error instanceof Error ? `unexpected error: ${error.message}` : `unexpected error: ${String(error)}`;
}
