/**
 * Internal: a server process started with `node:child_process` (Node, and Bun when asked): see
 * `_server-process.ts`. `detached` gives it its own session and process group (POSIX).
 */
import type { ChildProcess } from "node:child_process";
import { nodeChildProcess } from "../_internal/node-builtins.ts";
import { OWN_PROCESS_GROUP } from "./_process-tree.ts";
import type { ServerProcess, ServerProcessEvents, SpawnSpec } from "./_server-process.ts";

/** Spawn with `node:child_process`; resolves once it is up ('spawn'), rejects with ENOENT/EACCES ('error'). */
export async function spawnWithNode(spec: SpawnSpec, events: ServerProcessEvents): Promise<ServerProcess> {
  // Node throws synchronously for some bad arguments, and reports ENOENT/EACCES as an 'error' event.
  const child: ChildProcess = nodeChildProcess().spawn(spec.command, spec.args, {
    env: spec.env,
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
    detached: OWN_PROCESS_GROUP,
    cwd: spec.cwd,
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  child.on("error", (e) => events.error(e));
  child.stderr!.on("data", (chunk: Uint8Array) => events.stderr(chunk));
  child.stderr!.on("error", () => {});
  child.on("exit", (code, signal) => events.exit(code, signal));
  child.on("close", () => events.close());
  return {
    pid: child.pid as number,
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    kill: (signal) => {
      child.kill(signal);
    },
    output: child.stdout!,
    input: child.stdin!,
    drainOutput: () => {
      child.stdout?.resume();
    },
    closeOutput: () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    },
  };
}
