/**
 * Internal: the directory store's single-writer lock. Two store processes on one directory (a second pod on
 * a shared volume, a restart that overlaps the old process) would each serialise compare-and-set only
 * against themselves, and acknowledged writes would be lost; so a directory backend takes this lock before
 * it touches anything and holds it until it closes.
 *
 * The lock is the operating system's: `flock(LOCK_EX | LOCK_NB)` on `<dir>/.agentd-store.lock`, held through
 * an open file descriptor. The kernel drops it when the holder dies however it dies (`kill -9`, the OOM
 * killer), so a lock left by a crash never needs a person, and liveness is never guessed from a PID that
 * may have been reused (the weakness of the O_EXCL lock file in `oauth/file-lock.ts`, acceptable there for
 * short critical sections, not for a store's whole life). It works across containers sharing a volume on
 * one host (one kernel) and, on Linux, over NFS (flock becomes a POSIX lock the server holds; a dead
 * client's lock goes when its lease expires). Neither Node nor Bun exposes flock, so it is called through
 * `bun:ffi` from the C library; under Node, or where no C library with flock loads (Windows), the backend
 * refuses to open rather than run unlocked. The file's text (pid, host, start) only informs the refusal
 * message; it is never trusted for liveness. The file itself stays: its presence means nothing.
 */
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { AgentdError } from "../wire/errors.ts";

/** The lock file's name inside the store directory (never a document: documents end in `.json`). */
export const LOCK_FILE = ".agentd-store.lock";

const LOCK_EX = 2;
const LOCK_NB = 4;
/** EWOULDBLOCK (= EAGAIN): Linux 11, macOS 35. */
const HELD = process.platform === "darwin" ? 35 : 11;

interface Libc {
  flock(fd: number, operation: number): number;
  errno(): number;
}

let libc: Libc | string | undefined;

/** The C library's flock and errno, or why they cannot be had here. */
function loadLibc(): Libc | string {
  if (libc !== undefined) return libc;
  if (typeof Bun === "undefined") return (libc = "it needs the Bun runtime (agentd runs on it)");
  if (process.platform !== "linux" && process.platform !== "darwin") return (libc = `flock is not available on ${process.platform}`);
  const { dlopen, FFIType, read } = require("bun:ffi") as typeof import("bun:ffi");
  const errnoName = process.platform === "darwin" ? "__error" : "__errno_location";
  const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
  const names =
    process.platform === "darwin" ? ["libc.dylib", "/usr/lib/libSystem.B.dylib"] : ["libc.so.6", `libc.musl-${arch}.so.1`, "libc.so"];
  const failures: string[] = [];
  for (const name of names) {
    try {
      const lib = dlopen(name, {
        flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        [errnoName]: { args: [], returns: FFIType.ptr },
      });
      const errnoAt = lib.symbols[errnoName] as () => number | null;
      return (libc = {
        flock: (fd, op) => lib.symbols.flock(fd, op) as number,
        errno: () => {
          const at = errnoAt();
          return at ? read.i32(at as never, 0) : 0;
        },
      });
    } catch (e) {
      failures.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return (libc = `no C library with flock could be loaded (${failures.join("; ")})`);
}

/** A held lock. */
export interface DirectoryLock {
  /** Let go of the lock (closing its descriptor); idempotent. */
  release(): void;
}

/**
 * Take the single-writer lock of `dir` (which exists), or throw: `E_STORE_LOCKED` while another holds it
 * (with what that holder wrote about itself), `E_STORE` when no lock can be taken here.
 */
export function lockDirectory(dir: string): DirectoryLock {
  const c = loadLibc();
  if (typeof c === "string")
    throw new AgentdError("E_STORE", `cannot lock store directory ${dir} for a single writer: ${c}; use --redis instead`);
  const path = join(dir, LOCK_FILE);
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  if (c.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = c.errno();
    closeSync(fd);
    if (errno !== HELD)
      throw new AgentdError(
        "E_STORE",
        `cannot lock store directory ${dir} (flock failed, errno ${errno}); does its filesystem support locks?`,
      );
    throw new AgentdError(
      "E_STORE_LOCKED",
      `store directory ${dir} is in use by another store${describeHolder(path)}: stop it first, or give this store another directory`,
    );
  }
  // Written over the last holder's line, padded to a fixed width rather than truncated first: truncating a
  // file that has data frees its block in the file system's journal, and the local conversation store takes
  // this lock for every read and write (measured: a sixth of a continued conversation's time). JSON.parse
  // ignores the padding; a host name too long for the width only shortens what the refusal says.
  writeSync(fd, holderLine(), 0);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      closeSync(fd);
    },
  };
}

/** Bytes of the holder line: more than any line written before (they were never padded). */
const HOLDER_WIDTH = 512;

/** `{pid, host, since}` padded with spaces to {@link HOLDER_WIDTH} bytes. */
function holderLine(): string {
  const line = JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() });
  return Buffer.byteLength(line) <= HOLDER_WIDTH ? line.padEnd(HOLDER_WIDTH - Buffer.byteLength(line) + line.length, " ") : line;
}

/** " (pid N on HOST since T)" from the lock file, or "" when it says nothing usable. */
function describeHolder(path: string): string {
  try {
    const h = JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown; host?: unknown; since?: unknown };
    if (typeof h.pid !== "number" || typeof h.host !== "string") return "";
    return ` (pid ${h.pid} on ${h.host}${typeof h.since === "string" ? ` since ${h.since}` : ""})`;
  } catch {
    return "";
  }
}
