import { setLongTimeout } from "./timer.ts";

/** Resolve after `ms` (any length; `Infinity` waits for the abort), or at once when `signal` aborts; never leaves a timer behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      cancel();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const cancel = setLongTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
