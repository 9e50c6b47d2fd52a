/**
 * Internal: a server process started with `Bun.spawn`: see `_server-process.ts`. Only called under Bun (the
 * `Bun` global, never an import of "bun": the packages are also built for Node).
 *
 * `detached: true` runs `setsid()` in the child, as `node:child_process`'s `detached` does: its own session
 * and process group. A command that cannot be started throws at once, with `code` ENOENT or EACCES (the
 * child's `PATH` is searched, as Node does). The stdout stream is ours for the child's whole life: the
 * transport reads it through a {@link SourceLender}, and once it lets go we keep draining it, or cancel it.
 */
import { constants } from "node:os";
import { openSource, type SourceHandle, type SourceHandlers, type SourceLender } from "./_byte-streams.ts";
import { OWN_PROCESS_GROUP } from "./_process-tree.ts";
import type { ServerProcess, ServerProcessEvents, SpawnSpec } from "./_server-process.ts";

/** Spawn with `Bun.spawn`; throws the spawn's error (ENOENT, EACCES) synchronously. */
export function spawnWithBun(spec: SpawnSpec, events: ServerProcessEvents): ServerProcess {
  const proc = Bun.spawn([spec.command, ...spec.args], {
    env: spec.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    windowsHide: true,
    detached: OWN_PROCESS_GROUP,
    cwd: spec.cwd,
  });
  // Node's 'close': the process exited and both of its output pipes ended.
  let open = 3;
  const closed = () => {
    if (--open === 0) events.close();
  };
  const stdout = lentOutput(proc.stdout as ReadableStream<Uint8Array>, closed);
  const stderr = openSource(proc.stderr as ReadableStream<Uint8Array>, {
    data: (chunk) => events.stderr(chunk),
    end: closed,
    error: closed,
  });
  void proc.exited.then(() => {
    events.exit(proc.exitCode, signalName(proc.signalCode));
    closed();
  });
  return {
    pid: proc.pid,
    get exitCode() {
      return proc.exitCode;
    },
    get signalCode() {
      return signalName(proc.signalCode);
    },
    kill: (signal) => {
      try {
        proc.kill(signal);
      } catch (e) {
        events.error(e instanceof Error ? e : new Error(String(e)));
      }
    },
    output: stdout.source,
    input: proc.stdin,
    drainOutput: () => stdout.drain(),
    closeOutput: () => {
      stdout.cancel();
      stderr.detach(true);
    },
  };
}

/** Bun reports the signal by name; its types also allow a number, which Node never gives. */
function signalName(signal: string | number | null): string | null {
  if (typeof signal !== "number") return signal;
  return Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] ?? `signal ${signal}`;
}

/** The child's stdout, read by one reader for its whole life and lent to the transport while it reads. */
function lentOutput(stream: ReadableStream<Uint8Array>, ended: () => void) {
  let reader: SourceHandlers | undefined;
  let handle: SourceHandle | undefined;
  const open = (): SourceHandle =>
    (handle ??= openSource(stream, {
      data: (chunk) => reader?.data(chunk),
      end: () => {
        reader?.end();
        ended();
      },
      error: (e) => {
        reader?.error(e);
        ended();
      },
    }));
  const source: SourceLender = {
    openSource(handlers) {
      reader = handlers;
      const h = open();
      return {
        pause: () => h.pause(),
        resume: () => h.resume(),
        detach(destroy) {
          if (reader === handlers) reader = undefined;
          if (destroy) h.detach(true);
        },
      };
    },
  };
  return {
    source,
    /** Read on, dropping what comes, until the stream ends. */
    drain(): void {
      reader = undefined;
      open().resume();
    },
    cancel(): void {
      reader = undefined;
      open().detach(true);
    },
  };
}
