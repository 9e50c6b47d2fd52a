/**
 * Reloading the configuration without a restart: on SIGHUP, and when the configuration file changes. Both
 * call the agent's own reload (`agent.reload()`, the same as the operator's `agentd/reload`), so an invalid
 * file is refused the same way (the running configuration stays) and settings that need a restart are
 * reported the same way (`agent.reloaded` names them in `restartRequired`).
 *
 * Why the directory is watched as well as the file: Kubernetes updates a mounted ConfigMap by writing a new
 * timestamped directory and renaming the `..data` symlink over the old one, so `agentd.json ->
 * ..data/agentd.json` changes without the file itself being written; a watch on the file follows the old
 * inode, which is then deleted. The directory sees the rename. Events come in bursts (a swap is three or
 * four of them, an editor's save two), so they are debounced, and a burst that leaves the file's bytes as
 * they were (another file in the directory changed) reloads nothing. A file subPath-mounted from a
 * ConfigMap is never updated by the kubelet: mount the directory.
 */
import { sha256 } from "../../_internal/hash.ts";
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "../../log.ts";
import type { ReloadReport } from "./reload.ts";

/** What {@link reloadOnChange} needs. */
export interface ReloadOnChangeOptions {
  /** The configuration file to watch (absent: only SIGHUP reloads). */
  path?: string;
  /** The agent's reload: rejects, applying nothing, when the new configuration is invalid. */
  reload: () => Promise<ReloadReport>;
  logger: Logger;
  /** Quiet time after the last file event before reloading. Default 500 ms. */
  debounceMs?: number;
  /** Reload on SIGHUP. Default true. */
  sighup?: boolean;
}

/** A running watch; `close()` stops it (and the SIGHUP handler). */
export interface ReloadOnChange {
  /** Resolves once every reload asked for so far has been tried (tests and shutdown wait on it). */
  settled(): Promise<void>;
  close(): void;
}

/** Why a reload was tried, as logged. */
type Cause = "SIGHUP" | "file-changed";

/** Watch for SIGHUP and changes of `path`; reload the agent on each (see the module header). */
export function reloadOnChange(o: ReloadOnChangeOptions): ReloadOnChange {
  const debounceMs = o.debounceMs ?? 500;
  let closed = false;
  let lastDigest = o.path ? digestOf(o.path) : undefined;
  let chain: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watchers: FSWatcher[] = [];
  let fileWatcher: FSWatcher | undefined;

  function request(cause: Cause): void {
    chain = chain.then(() => attempt(cause));
  }

  async function attempt(cause: Cause): Promise<void> {
    if (closed) return;
    if (o.path) {
      // A burst of events that left the file as it was (another file in the directory) reloads nothing.
      const digest = digestOf(o.path);
      if (cause === "file-changed" && digest === lastDigest) return;
      lastDigest = digest;
      rewatchFile();
    }
    try {
      // Success is logged by the reload itself: one `agent.reloaded` line with `changed` and `restartRequired`.
      await o.reload();
    } catch (e) {
      o.logger.warn("agent.reload-refused", {
        cause,
        path: o.path,
        error: e instanceof Error ? e.message : String(e),
        kept: "the running configuration",
      });
    }
  }

  function changed(): void {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      request("file-changed");
    }, debounceMs);
    timer.unref?.();
  }

  /** The file's own watch follows one inode: after a swap or an editor's rename it is set up again. */
  function rewatchFile(): void {
    if (!o.path || closed) return;
    fileWatcher?.close();
    fileWatcher = tryWatch(o.path, () => changed());
  }

  if (o.path) {
    const name = basename(o.path);
    const dirWatcher = tryWatch(dirname(o.path), (file) => {
      // `..data` (a ConfigMap swap), the file itself, or a name we cannot tell (null): any may change it.
      if (file === null || file === name || file.startsWith("..")) changed();
    });
    if (dirWatcher) watchers.push(dirWatcher);
    rewatchFile();
  }
  const onHup = () => request("SIGHUP");
  if (o.sighup !== false) process.on("SIGHUP", onHup);

  return {
    settled: () => chain,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (o.sighup !== false) process.off("SIGHUP", onHup);
      fileWatcher?.close();
      for (const w of watchers) w.close();
    },
  };
}

/** A watch that never throws (a missing path is not watched; the next reload sets it up again). */
function tryWatch(path: string, onEvent: (file: string | null) => void): FSWatcher | undefined {
  try {
    const w = watch(path, { persistent: false }, (_event, file) => onEvent(typeof file === "string" ? file : null));
    w.on("error", () => w.close());
    return w;
  } catch {
    return undefined;
  }
}

/** The file's content digest, or undefined while it cannot be read (mid-swap). */
function digestOf(path: string): string | undefined {
  try {
    return sha256(readFileSync(path), "hex");
  } catch {
    return undefined;
  }
}
