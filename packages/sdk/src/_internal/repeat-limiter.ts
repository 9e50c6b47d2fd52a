/**
 * Internal: warnings a peer can cause at will (a response to an unknown id, a refused HTTP request) must
 * not turn into one log line each: a flood of them would bury everything else and cost a write apiece.
 * The first occurrence in a window is logged at once, with its fields; the rest are counted, and when the
 * window ends one summary line says how many there were (`repeated`, over `windowMs`), with the fields of
 * the last one. A window without repeats ends quietly, and the next occurrence is logged at once again.
 */
import type { Logger } from "../log.ts";

/** Options of {@link limitRepeats}. */
export interface RepeatLimiterOptions {
  /** The window in ms (default 60 000). */
  windowMs?: number;
  /** Distinct keys tracked at once; past it a new key is logged without limiting (default 256). */
  maxKeys?: number;
  /** Timer, for tests (default an unreferenced `setTimeout`: a pending summary never keeps the process alive). */
  setTimer?: (fn: () => void, ms: number) => () => void;
}

/** A rate-limited warn. */
export interface RepeatLimiter {
  /** Warn `event` unless it (with `key`, e.g. a reason) was warned already in this window: then count it. */
  warn(event: string, fields?: Record<string, unknown>, key?: string): void;
  /** Log the pending summaries now and stop the timers (the owner is closing). */
  flush(): void;
}

interface Window {
  event: string;
  repeated: number;
  last: Record<string, unknown> | undefined;
  cancel: () => void;
}

const unrefTimer = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  (t as { unref?: () => void }).unref?.();
  return () => clearTimeout(t);
};

/** Rate-limit repeated warnings on `logger`. */
export function limitRepeats(logger: Logger, options: RepeatLimiterOptions = {}): RepeatLimiter {
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = options.maxKeys ?? 256;
  const setTimer = options.setTimer ?? unrefTimer;
  const windows = new Map<string, Window>();

  const summarise = (w: Window) => {
    if (w.repeated > 0) logger.warn(w.event, { ...w.last, repeated: w.repeated, windowMs });
  };
  const open = (id: string, event: string): Window => {
    const w: Window = { event, repeated: 0, last: undefined, cancel: () => {} };
    w.cancel = setTimer(() => {
      windows.delete(id);
      // Repeats in this window: say so, and keep counting in a new one (a steady flood stays one line a window).
      if (w.repeated > 0) {
        summarise(w);
        windows.set(id, open(id, event));
      }
    }, windowMs);
    return w;
  };

  return {
    warn(event, fields, key) {
      const id = key === undefined ? event : `${event}\u0000${key}`;
      const w = windows.get(id);
      if (w) {
        w.repeated++;
        w.last = fields;
        return;
      }
      logger.warn(event, fields);
      if (windows.size < maxKeys) windows.set(id, open(id, event));
    },
    flush() {
      for (const w of windows.values()) {
        w.cancel();
        summarise(w);
      }
      windows.clear();
    },
  };
}
