/**
 * Time, behind an interface: the router, the interval and cron sources read and wait through a
 * {@link Clock}, so tests inject a fake one and advance it deterministically.
 */
import { MAX_TIMEOUT_MS } from "../_internal/timer.ts";

/** An armed timer, opaque to its holder. */
export interface TimerHandle {
  readonly at: number;
}

/** Wall-clock time and timers. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Run `fn` once: at the instant `when` (a Date) or after `when` milliseconds (a number). */
  setTimer(when: Date | number, fn: () => void): TimerHandle;
  /** Disarm a timer; a no-op when it already ran or was cleared. */
  clearTimer(handle: TimerHandle): void;
}

/** The largest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export { MAX_TIMEOUT_MS };

interface SystemTimer extends TimerHandle {
  timeout: ReturnType<typeof setTimeout> | undefined;
  cleared: boolean;
}

/**
 * The real clock. A timer waits in chunks: never more than `setTimeout` can honour, and for an absolute
 * instant (a cron tick) never more than `wallCheckMs`, re-reading the wall clock after each chunk so a
 * clock step (NTP, a resumed VM) moves the fire time with it. A timer never fires before its instant.
 */
export function systemClock(options: { wallCheckMs?: number; maxChunkMs?: number } = {}): Clock {
  const wallCheck = options.wallCheckMs ?? 60_000;
  const maxChunk = Math.min(options.maxChunkMs ?? MAX_TIMEOUT_MS, MAX_TIMEOUT_MS);
  return {
    now: () => Date.now(),
    setTimer(when, fn) {
      const absolute = when instanceof Date;
      const at = absolute ? when.getTime() : Date.now() + Math.max(0, when);
      const timer: SystemTimer = { at, timeout: undefined, cleared: false };
      // Always through setTimeout, even when due: a callback never runs inside setTimer.
      const schedule = () => {
        const left = Math.max(0, at - Date.now());
        timer.timeout = setTimeout(tick, Math.min(left, maxChunk, absolute ? wallCheck : maxChunk));
      };
      const tick = () => {
        timer.timeout = undefined;
        if (timer.cleared) return;
        if (Date.now() >= at) fn();
        else schedule();
      };
      schedule();
      return timer;
    },
    clearTimer(handle) {
      const timer = handle as SystemTimer;
      timer.cleared = true;
      if (timer.timeout !== undefined) clearTimeout(timer.timeout);
      timer.timeout = undefined;
    },
  };
}
