/**
 * The stdio transport, client side: spawn an MCP server and speak NDJSON on its stdin/stdout.
 *
 * Under Bun (and in a `bun build --compile` binary) the child is started with `Bun.spawn`, whose pipes are
 * native; under Node with `node:child_process` (see `_server-process.ts`). The child's stdout is protocol
 * only; its stderr is logged line by line (`mcp.stderr`). Shutdown follows the MCP stdio transport: close
 * stdin, wait, SIGTERM, wait, SIGKILL; `close()` resolves only once the process is gone. On POSIX the
 * signals go to the child's own process group, so a server behind a wrapper (`sh -c`, `npx`, `uvx`) stops
 * with it; see `_process-tree.ts`, which also stops them all if our process ends first, and
 * `_death-watch.ts`, which does so even when we are killed with SIGKILL.
 */
import { existsSync } from "node:fs";
import { setLongTimeout } from "../_internal/timer.ts";
import { nullLogger, scrubSecrets, type Logger } from "../log.ts";
import { AgentdError } from "../wire/errors.ts";
import type { JsonRpcMessage } from "../wire/jsonrpc.ts";
import { LineSplitter } from "../wire/ndjson.ts";
import { trackTree, waitGone, type ProcessTree } from "./_process-tree.ts";
import { DEFAULT_SPAWN_API, spawnServerProcess, type ServerProcess } from "./_server-process.ts";
import { StreamTransport } from "./stdio-streams.ts";
import type { MessageExtra, SendOptions, Transport } from "./types.ts";

/** How to start and stop one MCP server process. */
export interface StdioChildOptions {
  /** The server's configured name, used in errors and log records. */
  name: string;
  command: string;
  args?: string[];
  /** Merged over {@link defaultChildEnvironment}; the rest of our environment is not passed on. */
  env?: Record<string, string>;
  cwd?: string;
  /** Receives `mcp.stderr` (info) and `mcp.exit` records. */
  logger?: Logger;
  /** After closing stdin, how long to wait for the child to exit before SIGTERM (ms, default 2000). */
  closeGraceMs?: number;
  /**
   * After SIGTERM, how long to wait before SIGKILL (ms, default 2000). Also how long processes left in the
   * server's group after it exited (a wrapper's children) get between SIGTERM and SIGKILL.
   */
  termGraceMs?: number;
  /** Largest inbound frame in bytes (default `DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
  /** Stop reading the server's output while this many characters of our answers wait unread (see `StreamTransport`). */
  outputHighWaterMark?: number;
  /** Longer stderr lines are cut to this many bytes (default 4096). */
  maxStderrLineBytes?: number;
  /**
   * Which runtime API starts the process: `"bun"` (`Bun.spawn`, native pipes: the default under Bun) or
   * `"node"` (`node:child_process`: the default elsewhere, and the only one outside Bun). Both keep every
   * guarantee above; there is no need to set it but to work around a runtime's bug.
   */
  // Spelled out, not `SpawnApi`: the declarations must not reach the internal module (it names Node types).
  spawnApi?: "bun" | "node";
}

/** How the child ended. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

const INHERITED_ENV =
  process.platform === "win32"
    ? [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
        "PROGRAMFILES",
      ]
    : ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR"];

/** The variables a child inherits by default: enough to run, never our secrets (API keys, tokens). */
export function defaultChildEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    // Values starting with "()" are exported shell functions: a known injection vector.
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

/** How many of the server's last stderr lines an unexpected exit reports, and how long each may be. */
const STDERR_TAIL_LINES = 3;
const STDERR_TAIL_CHARS = 200;

/** How long close() waits for SIGKILLed leftovers to be gone before it stops looking. */
const KILL_SETTLE_MS = 1000;

/** A transport to an MCP server running as our child process. Call `start()` once to spawn it. */
export class StdioChildTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: Transport["onframeerror"];
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private child?: ServerProcess;
  private tree?: ProcessTree;
  private stream?: StreamTransport;
  private stderr?: LineSplitter;
  private started = false;
  private launching?: Promise<void>;
  private finished = false;
  private closing?: Promise<void>;
  private exit?: ChildExit;
  /** The last few stderr lines, for the error an unexpected exit reports. */
  private readonly stderrTail: string[] = [];
  private reason?: Error;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private readonly done: Promise<void>;
  private markDone!: () => void;
  private readonly log: Logger;

  constructor(private readonly options: StdioChildOptions) {
    this.log = options.logger ?? nullLogger;
    this.exited = new Promise((r) => (this.markExited = r));
    this.done = new Promise((r) => (this.markDone = r));
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the child ended, once it has. */
  get exitStatus(): ChildExit | undefined {
    return this.exit;
  }

  /** Set when the server exited on its own: its exit code or signal and its last stderr lines. */
  get closeReason(): Error | undefined {
    return this.reason;
  }

  /**
   * Spawn the server now, ahead of {@link start}, so its start-up (often tens of milliseconds) overlaps with
   * the caller's remaining set-up. `start()` then waits for this spawn and reports its failure; `close()`
   * stops the process whether or not `start()` was called. Idempotent. Events are delivered from the moment
   * the process is up, so set the handlers first, as for `start()`. The promise settles when the process is
   * up or could not be spawned; awaiting it is optional (a failure is reported by `start()` as well).
   */
  launch(): Promise<void> {
    if (!this.launching) {
      if (this.finished || this.closing) return Promise.resolve();
      this.launching = this.spawnChild();
      this.launching.catch(() => {}); // reported by start()
    }
    return this.launching;
  }

  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", `MCP server '${this.options.name}' already started`);
    // A launched spawn reports its own outcome (a failed one names the command), even if it settled already.
    if (this.closing || (this.finished && !this.launching)) throw new AgentdError("E_CONNECTION_CLOSED", "transport is closed");
    this.started = true;
    await (this.launching ??= this.spawnChild());
    if (this.exit) {
      // Gone already: once its stderr is read to the end, say how it ended and what it last wrote.
      await this.done;
      if (this.reason) throw this.reason;
      const how = this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
      throw new AgentdError("E_TRANSPORT", `MCP server '${this.options.name}' ${how} before the connection started`);
    }
  }

  private async spawnChild(): Promise<void> {
    const { command, args = [], cwd } = this.options;
    const env = { ...defaultChildEnvironment(), ...this.options.env };
    const stderr = this.stderrLines();
    let child: ServerProcess;
    try {
      // In its own process group (POSIX), signalled as a whole: a wrapper's children stop with it.
      child = await spawnServerProcess(
        { command, args, env, cwd },
        {
          stderr: (chunk) => stderr.push(chunk),
          exit: (code, signal) => this.childExited(code, signal),
          close: () => this.finish(),
          error: (e) => this.onerror?.(e),
        },
        this.options.spawnApi ?? DEFAULT_SPAWN_API,
      );
    } catch (e) {
      this.finished = true;
      throw this.spawnError(e as NodeJS.ErrnoException);
    }
    this.child = child;
    this.tree = trackTree(child, (reason) => this.log.warn("mcp.unguarded", { server: this.options.name, reason }));
    this.wire(child);
  }

  // Not async: the stream's own promise, so a message costs no extra frame on the way out.
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    const stream = this.stream;
    if (!stream || this.finished) return Promise.reject(new AgentdError("E_CONNECTION_CLOSED", "transport is closed"));
    if (stream.isClosed && !this.closing)
      return this.endedError().then((e) => {
        throw e;
      });
    return stream.send(message, options);
  }

  /**
   * The server closed its stdout, so it is exiting, but its exit may not be seen yet (a pipe's end can be read
   * before the exit is reaped): wait for it, within the grace, and say how it ended, as pending requests hear.
   */
  private async endedError(): Promise<AgentdError> {
    await within(this.done, this.options.closeGraceMs ?? 2000);
    const reason = this.reason;
    return reason
      ? new AgentdError("E_CONNECTION_CLOSED", reason.message, { cause: reason, retryable: true })
      : new AgentdError("E_CONNECTION_CLOSED", "transport is closed");
  }

  /** Close stdin, then SIGTERM after `closeGraceMs`, then SIGKILL after `termGraceMs`. Resolves once exited. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private wire(child: ServerProcess): void {
    const stream = new StreamTransport(child.output, child.input, {
      maxFrameBytes: this.options.maxFrameBytes,
      outputHighWaterMark: this.options.outputHighWaterMark,
      destroyInput: false,
    });
    stream.onmessage = (m) => this.onmessage?.(m);
    stream.onframeerror = (e) => this.onframeerror?.(e);
    stream.onerror = (e) => this.onerror?.(e);
    this.stream = stream;
    void stream.start();
  }

  /** Its stderr, logged line by line; the last few lines are kept for the error an unexpected exit reports. */
  private stderrLines(): LineSplitter {
    const decoder = new TextDecoder();
    const stderr = new LineSplitter({
      maxLineBytes: this.options.maxStderrLineBytes ?? 4096,
      overflow: "truncate",
      online: (bytes, truncated) => {
        const line = decoder.decode(bytes);
        this.log.info("mcp.stderr", { server: this.options.name, line, truncated: truncated || undefined });
        if (line.trim() === "") return;
        this.stderrTail.push(line.length > STDERR_TAIL_CHARS ? `${line.slice(0, STDERR_TAIL_CHARS)}…` : line);
        if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
      },
    });
    this.stderr = stderr;
    return stderr;
  }

  /** The process exited (its pipes may still hold output). */
  private childExited(code: number | null, signal: string | null): void {
    this.exit = { code, signal };
    // Anything left in its group (a wrapper's child) stays tracked until close() or our exit stops it.
    if (!this.tree?.alive()) this.tree?.forget();
    this.markExited();
    const fields = { server: this.options.name, pid: this.child?.pid, code, signal };
    if (this.closing) this.log.debug("mcp.exit", fields);
    else {
      this.log.warn("mcp.exit", fields);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.onerror?.(new AgentdError("E_TRANSPORT", `MCP server '${this.options.name}' ${how}`));
    }
    // 'close' follows once the pipes drain; a grandchild holding them open must not stall us.
    const cancel = setLongTimeout(() => this.finish(), this.options.closeGraceMs ?? 2000);
    void this.done.then(cancel);
  }

  private async shutdown(): Promise<void> {
    // A process still coming up (launched, or start() waiting for it) is stopped once its spawn settles.
    if (!this.child && this.launching) await this.launching.catch(() => {});
    const child = this.child;
    if (!child) {
      this.finish();
      return;
    }
    // Stop accepting sends at once; those waiting for 'drain' reject. Ending stdin asks the server to exit.
    await this.stream?.close();
    // Keep draining stdout so a chatty server cannot block on a full pipe while it shuts down.
    child.drainOutput();
    const termGraceMs = this.options.termGraceMs ?? 2000;
    const steps: Array<[number, NodeJS.Signals]> = [
      [this.options.closeGraceMs ?? 2000, "SIGTERM"],
      [termGraceMs, "SIGKILL"],
    ];
    let killed = false;
    for (const [grace, signal] of steps) {
      if (await within(this.exited, grace)) break;
      this.tree?.signal(signal);
      killed = signal === "SIGKILL";
    }
    await this.exited;
    if (this.tree) await this.stopLeftovers(this.tree, termGraceMs, killed);
    await this.done;
  }

  /**
   * The server exited, but its group may not be empty: a wrapper (`sh -c`) that died on SIGTERM while its
   * child ignores it, or a child that outlived a wrapper which exited by itself. Nobody can talk to those
   * any more: SIGTERM, then SIGKILL after the grace, and wait until the group is empty.
   */
  private async stopLeftovers(tree: ProcessTree, graceMs: number, killed: boolean): Promise<void> {
    if (tree.alive()) {
      this.log.debug("mcp.leftovers", { server: this.options.name, pgid: tree.pid });
      if (!killed) tree.signal("SIGTERM");
      if (killed || !(await waitGone(tree, graceMs))) {
        tree.signal("SIGKILL");
        // SIGKILL cannot be ignored, but it lands asynchronously; bounded for one stuck in the kernel (D state).
        await waitGone(tree, KILL_SETTLE_MS);
      }
    }
    tree.forget();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.child?.closeOutput();
    this.stderr?.end();
    // Exited on its own: requests still waiting fail saying so, with what it last wrote on stderr.
    if (this.exit && !this.closing) {
      const how = this.exit.signal ? `was killed by ${this.exit.signal}` : `exited with code ${this.exit.code}`;
      const tail = this.stderrTail.length > 0 ? `; last stderr: ${scrubSecrets(this.stderrTail.join(" | "))}` : "; nothing on stderr";
      this.reason = new AgentdError("E_TRANSPORT", `MCP server '${this.options.name}' ${how}${tail}`);
    }
    void this.stream?.close();
    this.markDone();
    this.onclose?.();
  }

  private spawnError(e: NodeJS.ErrnoException): AgentdError {
    const { name, command, cwd } = this.options;
    const prefix = `could not start MCP server '${name}'`;
    if (e.code === "ENOENT" && cwd !== undefined && !existsSync(cwd))
      return new AgentdError("E_TRANSPORT", `${prefix}: working directory '${cwd}' does not exist`, { cause: e });
    if (e.code === "ENOENT") return new AgentdError("E_TRANSPORT", `${prefix}: command '${command}' not found`, { cause: e });
    if (e.code === "EACCES") return new AgentdError("E_TRANSPORT", `${prefix}: command '${command}' is not executable`, { cause: e });
    return new AgentdError("E_TRANSPORT", `${prefix}: ${e.message}`, { cause: e });
  }
}

/** Whether `p` settles within `ms` (any length: the graces are configuration). */
async function within(p: Promise<void>, ms: number): Promise<boolean> {
  let cancel = () => {};
  const timeout = new Promise<boolean>((r) => (cancel = setLongTimeout(() => r(false), ms)));
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    cancel();
  }
}
