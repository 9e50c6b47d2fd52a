/**
 * A lock shared by processes on one machine (or one shared volume): a lock file created with `O_EXCL`
 * (`open(…, "wx")`), holding the owner's host, PID and start time.
 *
 * Why not flock: neither Bun nor Node exposes flock/fcntl locks, and a native add-on would be the SDK's first.
 * `O_EXCL` creation is atomic on local filesystems (and NFSv3+), needs nothing but `node:fs`, and its one
 * weakness — a holder that dies leaves the file — is covered by stale-lock takeover: a lock whose PID no
 * longer runs on this host, or that is older than `staleMs` (a holder on another host, a PID reused), is
 * removed and the creation retried. A waiter polls with a growing delay; nothing signals a file's removal
 * portably.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** A lock older than this is taken over whoever holds it (ms). Default 30 s. */
  staleMs?: number;
  /** Give up waiting after this long (ms). Default 60 s. */
  timeoutMs?: number;
}

interface Holder {
  host: string;
  pid: number;
  at: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Run `fn` holding the lock file `path` (created beside the data it guards, removed after). */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const me: Holder = { host: hostname(), pid: process.pid, at: Date.now() };
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    if (tryCreate(path, me)) break;
    takeOverIfStale(path, staleMs);
    if (Date.now() > deadline)
      throw new Error(
        `the lock ${path} is still held after ${Math.round((options.timeoutMs ?? 60_000) / 1000)} s; remove it if no agentd runs`,
      );
    await sleep(delay);
  }
  try {
    return await fn();
  } finally {
    // Only our own lock is removed: one taken over from us (we overran staleMs) belongs to another now.
    if (sameHolder(readHolder(path), me)) unlinkSync(path);
  }
}

function tryCreate(path: string, me: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readHolder(path: string): Holder | undefined | "unreadable" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    const h = JSON.parse(text) as Holder;
    return typeof h.pid === "number" && typeof h.at === "number" ? h : "unreadable";
  } catch {
    // Created but not yet written (the holder is between open and write): not stale, wait.
    return "unreadable";
  }
}

const sameHolder = (a: ReturnType<typeof readHolder>, b: Holder) =>
  typeof a === "object" && a.host === b.host && a.pid === b.pid && a.at === b.at;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // it exists, under another user
  }
}

function takeOverIfStale(path: string, staleMs: number): void {
  const h = readHolder(path);
  if (h === undefined) return;
  if (h === "unreadable") {
    // A holder that died between creating and writing the file: only its age tells.
    try {
      if (Date.now() - statSync(path).mtimeMs > staleMs) unlinkSync(path);
    } catch {}
    return;
  }
  const dead = h.host === hostname() && !alive(h.pid);
  if (!dead && Date.now() - h.at < staleMs) return;
  // Re-read right before removing: a lock another waiter just took over is not removed again.
  if (!sameHolder(readHolder(path), h)) return;
  try {
    unlinkSync(path);
  } catch {}
}
