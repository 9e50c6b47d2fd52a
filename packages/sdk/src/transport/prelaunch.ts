/**
 * Stdio MCP servers started before the agent that uses them is built. A program that knows a server early
 * (the CLI's `demo`, whose bundled server is a second copy of the program) spawns it first and loads the
 * rest of itself while the child's runtime comes up; the agent's first connection to a server with the same
 * name, command, arguments, environment and directory then takes that process instead of spawning another.
 *
 * The child is spawned at once (its stdout is read from then on): a server that speaks before it is asked
 * (the protocol has it wait for `initialize`) would be heard by nobody until the agent takes it.
 */
import { StdioChildTransport, type StdioChildOptions } from "./stdio-child.ts";

/** Launched transports nobody took yet, by what identifies their process. */
const waiting = new Map<string, StdioChildTransport>();

/** Name, command line, environment and directory: what must match for a connection to take a process. */
function keyOf(options: StdioChildOptions): string {
  const env = Object.entries(options.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([options.name, options.command, options.args ?? [], env, options.cwd ?? null]);
}

/**
 * Spawn a stdio MCP server now, for the agent built later to take (see the module comment). Its records
 * go to `options.logger` (which the agent's logger does not replace). A second call for the same server
 * while the first waits does nothing more. Stop what nobody took with {@link discardPrelaunchedServers}.
 * Awaiting the result is optional: the child's pid once it is up, undefined if it could not be spawned (the
 * connection that takes it reports why).
 */
export async function prelaunchStdioServer(options: StdioChildOptions): Promise<number | undefined> {
  const key = keyOf(options);
  let transport = waiting.get(key);
  if (transport === undefined) {
    transport = new StdioChildTransport(options);
    waiting.set(key, transport);
  }
  await transport.launch().catch(() => {});
  return transport.pid;
}

/** The launched transport for a server with exactly these options, taken (once), if one waits. */
export function takePrelaunchedServer(options: StdioChildOptions): StdioChildTransport | undefined {
  const key = keyOf(options);
  const transport = waiting.get(key);
  waiting.delete(key);
  return transport;
}

/** Stop every prelaunched server nobody took; resolves once they are gone. */
export async function discardPrelaunchedServers(): Promise<void> {
  const left = [...waiting.values()];
  waiting.clear();
  await Promise.all(left.map((transport) => transport.close()));
}
