/**
 * How to start another process of this same program: the compiled binary spawns itself; under Bun or Node
 * from source, the runtime runs the entry script again. Used for subagents and for the bundled demo server.
 */

/** True inside a `bun build --compile` binary (argv[1] lives in Bun's embedded filesystem). */
export const isCompiledBinary = (argv = process.argv): boolean =>
  typeof argv[1] === "string" && (argv[1].startsWith("/$bunfs/") || argv[1].startsWith("B:\\~BUN\\"));

/**
 * The command and leading arguments that re-run this program, e.g. `[bun, /path/main.ts]` or `[/usr/bin/agentd]`.
 * `entry` overrides the script (the SDK spawning the CLI entry from a library context).
 */
export function selfCommand(entry?: string, argv = process.argv): { command: string; args: string[] } {
  if (entry) return { command: process.execPath, args: [entry] };
  if (isCompiledBinary(argv)) return { command: process.execPath, args: [] };
  const script = argv[1];
  return { command: process.execPath, args: script ? [script] : [] };
}
