/**
 * Serving MCP on our own stdin/stdout (`agentd serve --stdio`, and the MCP servers we ship).
 *
 * MCP stdio transport: "The server MUST NOT write anything to its stdout that is not a valid MCP message."
 * While it runs, this transport sends `console.log`/`info`/`debug`/`dir`/`table` to stderr so a stray log
 * line cannot corrupt the protocol stream. Direct `process.stdout.write` calls are not intercepted.
 */
import { StreamTransport, type StreamTransportOptions } from "./stdio-streams.ts";
import { MAX_JSON_DEPTH } from "../wire/json-depth.ts";

/** Options for {@link StdioServerTransport}. */
export interface StdioServerTransportOptions {
  /** Largest inbound frame in bytes (default `DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
  /** Refuse an inbound frame nesting deeper than this (-32600) before parsing it. Default `MAX_JSON_DEPTH` (256). */
  maxDepth?: number;
  /** Route stdout-bound console methods to stderr while the transport is open (default true). */
  guardConsole?: boolean;
  /**
   * When stdin ends: close the transport (`"close"`, the default) or keep stdout open (`"half-close"`) and
   * report it through `oninputend`, so in-flight requests can still be answered before `close()`.
   */
  onInputEnd?: "close" | "half-close";
}

const STDOUT_CONSOLE_METHODS = ["log", "info", "debug", "dir", "table"] as const;
type ConsoleMethod = (typeof STDOUT_CONSOLE_METHODS)[number];

/** Console methods saved by the first guard; restored when the last guard is released. */
let saved: Partial<Record<ConsoleMethod, Console[ConsoleMethod]>> | undefined;
let guards = 0;

function guardConsole(): () => void {
  if (guards++ === 0) {
    saved = {};
    const toStderr = console.error.bind(console);
    for (const m of STDOUT_CONSOLE_METHODS) {
      saved[m] = console[m] as never;
      (console as unknown as Record<string, unknown>)[m] = toStderr;
    }
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--guards === 0 && saved) {
      for (const m of STDOUT_CONSOLE_METHODS) (console as unknown as Record<string, unknown>)[m] = saved[m];
      saved = undefined;
    }
  };
}

/**
 * Our stdin as a byte source. Under Bun, its native stream: `process.stdin` is Node's stream machinery
 * emulated on top of it (a `data` event, a buffer list and a read-more tick per chunk), paid on every
 * message of a request/response exchange. Pausing stops pulling from it, as before.
 */
function stdinSource(): ReadableStream<Uint8Array> | NodeJS.ReadStream {
  return typeof Bun !== "undefined" ? (Bun.stdin.stream() as ReadableStream<Uint8Array>) : process.stdin;
}

/**
 * A {@link StreamTransport} over our stdin (see `stdinSource`) / `process.stdout`. When the peer closes our stdin, the
 * transport closes (`onclose`); closing it stops reading stdin (so the process can exit) but leaves stdout
 * open for the rest of the program.
 */
export class StdioServerTransport extends StreamTransport {
  private unguard?: () => void;
  private readonly guard: boolean;

  constructor(options: StdioServerTransportOptions = {}) {
    const streamOptions: StreamTransportOptions = { endOutput: false, destroyInput: true, maxDepth: options.maxDepth ?? MAX_JSON_DEPTH };
    if (options.maxFrameBytes !== undefined) streamOptions.maxFrameBytes = options.maxFrameBytes;
    if (options.onInputEnd !== undefined) streamOptions.onInputEnd = options.onInputEnd;
    super(stdinSource(), process.stdout, streamOptions);
    this.guard = options.guardConsole ?? true;
  }

  override async start(): Promise<void> {
    await super.start();
    if (this.guard) this.unguard = guardConsole();
  }

  protected override released(): void {
    this.unguard?.();
  }
}
