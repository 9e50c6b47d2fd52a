/**
 * The control channel's pipe, the one runtime-specific piece: the parent spawns the child with a fourth
 * stdio entry (`node:child_process.spawn(…, { stdio: [ …, "pipe"] })`), which Bun, compiled binaries and
 * Node all create as a socketpair, so fd 3 carries both directions. The parent uses `child.stdio[3]`; the
 * child opens fd 3 with `node:fs` streams (`net.Socket({ fd })` does not read under Bun). Checked on this
 * platform (NOTES.md).
 */
import { createReadStream, createWriteStream, fstatSync } from "node:fs";
import { AgentdError } from "../wire/errors.ts";
import type { ControlIO } from "./control-channel.ts";

/** The file descriptor of the control channel in a child. */
export const CONTROL_FD = 3;

interface ReadableLike {
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): unknown;
}
interface WritableLike {
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): unknown;
}

/** A ControlIO over Node-style streams (one duplex socket, or a read and a write stream on one fd). */
export function streamControlIO(readable: ReadableLike, writable: WritableLike): ControlIO {
  let last: Promise<void> = Promise.resolve();
  let closed = false;
  let onError: ((e: Error) => void) | undefined;
  const fail = (e: unknown) => onError?.(e instanceof Error ? e : new Error(String(e)));
  return {
    write(bytes) {
      if (closed) return;
      last = new Promise<void>((resolve) => {
        writable.write(bytes, (error) => {
          if (error) fail(error);
          resolve();
        });
      });
    },
    flush: () => last,
    open(handlers) {
      onError = handlers.error;
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        handlers.end();
      };
      readable.on("data", (chunk: Uint8Array | string) =>
        handlers.data(typeof chunk === "string" ? new TextEncoder().encode(chunk) : chunk),
      );
      readable.on("end", end);
      readable.on("close", end);
      readable.on("error", (e: Error) => (ended ? undefined : handlers.error(e)));
      // EPIPE and friends after the peer died: reported once, never an unhandled 'error' event.
      writable.on("error", (e: Error) => (ended ? undefined : handlers.error(e)));
    },
    close() {
      if (closed) return;
      closed = true;
      readable.destroy();
      if (writable !== readable) writable.destroy();
    },
  };
}

/**
 * Open the control channel a parent handed this process on fd 3. Throws `E_USAGE` when fd 3 is not a
 * socket or pipe (the hidden subagent entry was started by hand).
 */
export function openInheritedControlIO(fd = CONTROL_FD): ControlIO {
  let ok = false;
  try {
    const st = fstatSync(fd);
    ok = st.isSocket() || st.isFIFO();
  } catch {
    ok = false;
  }
  if (!ok) throw new AgentdError("E_USAGE", `no control channel on fd ${fd}: this entry is started by a parent agentd, not by hand`);
  // Only the reader closes the descriptor, so it is closed exactly once.
  const readable = createReadStream("", { fd, autoClose: true });
  const writable = createWriteStream("", { fd, autoClose: false });
  return streamControlIO(readable, writable);
}
