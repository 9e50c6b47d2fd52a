/**
 * Entries the program uses to start copies of itself (never shown in --help): the bundled demo MCP server,
 * and a subagent child (`__subagent`, the SDK's SUBAGENT_ENTRY).
 * The compiled binary spawns itself with these, so the demo needs nothing but the one file.
 */

/** The hidden entry names. */
export const HIDDEN = { demoServer: "__demo-server", subagent: "__subagent" } as const;

/** Run a hidden entry if argv names one; otherwise undefined. */
export async function runHiddenEntry(argv: string[]): Promise<number | undefined> {
  if (argv[0] === HIDDEN.demoServer) {
    const { serveDemoServer } = await import("./demo/demo-server.ts");
    return serveDemoServer();
  }
  if (argv[0] === HIDDEN.subagent) return (await import("./subagent-entry.ts")).runSubagent();
  return undefined;
}
