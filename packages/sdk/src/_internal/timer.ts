/**
 * Timers for delays that come from configuration and may be long. `setTimeout` silently clamps any delay
 * above 2^31 - 1 ms (about 24.8 days) to 1 ms, so a "30d" deadline would fire at once; and it turns
 * `Infinity` into 1 ms too. {@link setLongTimeout} waits such delays in chunks and treats `Infinity` as
 * "never". A delay that fits is exactly one `setTimeout` (plus a closure), so hot paths stay cheap.
 */

/** The largest delay `setTimeout` honours (2^31 - 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Disarms a timer; a no-op once it ran or was cancelled. */
export type CancelTimer = () => void;

/** Tuning, for tests. */
export interface LongTimeoutOptions {
  /** The longest single `setTimeout` (default and upper bound {@link MAX_TIMEOUT_MS}). */
  maxChunkMs?: number;
}

const NEVER: CancelTimer = () => {};

/**
 * Run `fn` once after `ms` milliseconds, for any `ms`: `Infinity` never fires; a negative or NaN delay
 * fires on the next timer turn, as with `setTimeout`. Chunks are counted, not read off the wall clock, so
 * a clock step cannot make it fire early or late (the triggers' clock re-reads the wall clock on purpose).
 * The callback never runs inside this call.
 */
export function setLongTimeout(fn: () => void, ms: number, options: LongTimeoutOptions = {}): CancelTimer {
  if (ms === Infinity) return NEVER;
  const maxChunk = Math.max(1, Math.min(options.maxChunkMs ?? MAX_TIMEOUT_MS, MAX_TIMEOUT_MS));
  let left = Math.max(ms, 0);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const step = () => {
    const chunk = Math.min(left, maxChunk);
    left -= chunk;
    timer = setTimeout(left > 0 ? step : fire, chunk);
  };
  const fire = () => {
    timer = undefined;
    fn();
  };
  step();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
}
