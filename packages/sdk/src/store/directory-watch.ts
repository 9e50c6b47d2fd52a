/**
 * Hearing the changes other processes make to a store directory that no store server fronts — the local
 * state directory (`LocalDocuments`: the approval desk's questions, conversations, waiting runs), which
 * every process opens per operation. A directory backend's own `watch` hears only writes made through that
 * backend, in that process; a store server tells its subscribers (Redis pub/sub across replicas); a bare
 * directory tells nobody. So the directory is watched here: `fs.watch` on it (inotify, FSEvents, …) rings at
 * once when a document is renamed into place, and each ring re-lists the keys under the prefix and reports
 * those whose version changed (or that went away) since the last look.
 *
 * The re-list also runs every `relistMs` on its own, because `fs.watch` does not hear everything: on a
 * network filesystem (NFS, SMB) a change made on another host raises no local event, some container bind
 * mounts and virtual-machine file shares pass no events through, and the kernel drops events when its
 * queue overflows. Polling alone would do, only slower; the two together hear a change at once where the
 * platform can tell, and within `relistMs` where it cannot. Bounded: one re-list at a time (rings meanwhile
 * fold into one more), one watcher and one timer per subscription, all stopped by the unsubscribe.
 */
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import { keyOfFileName } from "./_directory-files.ts";
import type { ListedKey } from "./types.ts";

/** How often a watched directory is re-listed when `fs.watch` stays silent (see the module header). */
export const DIRECTORY_RELIST_MS = 2_000;

/** What {@link watchDirectoryKeys} needs. */
export interface DirectoryWatch {
  dir: string;
  /** Only keys starting with this are reported. */
  prefix: string;
  /** The directory's keys under a prefix, with their versions (the store's own `list`). */
  list: (prefix: string) => Promise<ListedKey[]>;
  /** Told each key written or deleted since the last look, by any process. */
  onChange: (key: string) => void;
  /** The re-list's period (default {@link DIRECTORY_RELIST_MS}). */
  relistMs?: number;
  /** A re-list that failed (the next one tries again). */
  onError?: (error: unknown) => void;
}

/** Whether a file of the directory may hold a key under `prefix` (temp files and the lock file never do). */
function mayHold(name: string, prefix: string): boolean {
  const found = keyOfFileName(name);
  return found === "hashed" || found?.key.startsWith(prefix) === true;
}

/** Watch `dir` for changes under `prefix` (see the module header); resolves, once watching, to the unsubscribe. */
export async function watchDirectoryKeys(w: DirectoryWatch): Promise<() => void> {
  const seen = new Map<string, number>();
  let closed = false;
  let running = false;
  let again = false;
  const relist = async () => {
    const now = new Map((await w.list(w.prefix)).map((k) => [k.key, k.version] as const));
    const changed = [...now].filter(([key, version]) => seen.get(key) !== version).map(([key]) => key);
    const gone = [...seen.keys()].filter((key) => !now.has(key));
    seen.clear();
    for (const [key, version] of now) seen.set(key, version);
    if (!closed) for (const key of [...changed, ...gone]) w.onChange(key);
  };
  const ring = () => {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        await relist().catch((e: unknown) => w.onError?.(e));
      } while (again && !closed);
      running = false;
    })();
  };
  mkdirSync(w.dir, { recursive: true });
  for (const k of await w.list(w.prefix)) seen.set(k.key, k.version);
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(w.dir, { persistent: false }, (_event, name) => {
      if (name === null || mayHold(String(name), w.prefix)) ring();
    });
    // A watcher that fails later (the directory removed, a limit reached) leaves the re-list to hear changes.
    watcher.on("error", () => watcher?.close());
  } catch {
    // No watching here (a limit on watchers reached, an unsupported filesystem): the re-list alone.
  }
  const timer = setInterval(ring, w.relistMs ?? DIRECTORY_RELIST_MS);
  timer.unref?.();
  return () => {
    closed = true;
    watcher?.close();
    clearInterval(timer);
  };
}
