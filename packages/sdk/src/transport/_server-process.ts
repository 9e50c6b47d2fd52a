/**
 * Internal: a stdio MCP server's process, started through the runtime's own API, behind one interface.
 *
 * Under Bun, `Bun.spawn` (`_server-process-bun.ts`): its pipes are native (a `ReadableStream` for stdout, a
 * `FileSink` for stdin), where `node:child_process` is Bun's emulation of Node's streams and events on top of
 * them — about a fifth of the client's CPU per request/response exchange, and part of each server's start-up.
 * Under Node (the packages' Node build), `node:child_process` (`_server-process-node.ts`). Both give the child
 * its own process group and session (`setsid`, POSIX), which `_process-tree.ts` signals as a whole.
 */
import type { ByteSink, ByteSource } from "./_byte-streams.ts";
import { spawnWithBun } from "./_server-process-bun.ts";
import { spawnWithNode } from "./_server-process-node.ts";

/** Which runtime API starts the process. */
export type SpawnApi = "bun" | "node";

/** What to start. `env` is the child's whole environment. */
export interface SpawnSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** What a running server reports, from the moment it is spawned. */
export interface ServerProcessEvents {
  /** A chunk of its stderr. */
  stderr(chunk: Uint8Array): void;
  /** It exited: its code, or the signal that ended it. Its pipes may still hold output. */
  exit(code: number | null, signal: string | null): void;
  /** It exited and its stdout and stderr both reached their end (after `exit`). */
  close(): void;
  /** A failure after the spawn (e.g. a signal that could not be sent). */
  error(e: Error): void;
}

/** A spawned server process. */
export interface ServerProcess {
  readonly pid: number;
  /** Its exit code once it exited normally, else null. */
  readonly exitCode: number | null;
  /** The signal that ended it, else null. */
  readonly signalCode: string | null;
  /** Signal the process itself (not its group: see `_process-tree.ts`). */
  kill(signal: NodeJS.Signals): void;
  /** Its stdout, for the transport to read. */
  readonly output: ByteSource;
  /** Its stdin, for the transport to write. */
  readonly input: ByteSink;
  /** After the transport let go of stdout: keep reading it, discarding, so a server writing while it shuts down never blocks on a full pipe. */
  drainOutput(): void;
  /** Stop reading stdout and stderr: a process still holding them (a grandchild) must not keep us waiting or running. */
  closeOutput(): void;
}

/** The API used by default: Bun's own under Bun, `node:child_process` elsewhere. */
export const DEFAULT_SPAWN_API: SpawnApi = typeof Bun !== "undefined" ? "bun" : "node";

/**
 * Spawn a server. Rejects with the runtime's error (a `code` such as `ENOENT` or `EACCES`) when the command
 * cannot be started; `events` are reported from the spawn on.
 */
export function spawnServerProcess(
  spec: SpawnSpec,
  events: ServerProcessEvents,
  api: SpawnApi = DEFAULT_SPAWN_API,
): Promise<ServerProcess> {
  if (api === "bun") {
    if (typeof Bun === "undefined") return Promise.reject(new Error('spawning with "bun" needs the Bun runtime'));
    try {
      return Promise.resolve(spawnWithBun(spec, events));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return spawnWithNode(spec, events);
}
