/**
 * The one backoff helper: bounded exponential growth with jitter. Model retries, MCP reconnects, the HTTP
 * client's stream reconnects and subagent restarts all pace themselves with it, each with its own policy.
 *
 * Jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): `full` waits uniformly in [0, step),
 * so clients dropped together by one restart spread out again; `equal` waits in [step/2, step), never
 * retrying at once; `none` waits the step exactly (a restart schedule a person reads in the logs).
 */

/** How waits grow between attempts. */
export interface BackoffPolicy {
  /** The first step (ms). */
  initialDelayMs: number;
  /** No step is longer (ms). */
  maxDelayMs: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Randomisation of each wait (default `full`). */
  jitter?: "full" | "equal" | "none";
}

/** The wait (ms) before retry `attempt` (0-based): see the module header. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  // The exponent is capped: 2 ** 1100 is Infinity, and Infinity * 0 (a zero initial delay) is NaN.
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * (policy.factor ?? 2) ** Math.min(Math.max(0, attempt), 52));
  switch (policy.jitter ?? "full") {
    case "none":
      return step;
    case "equal":
      return step / 2 + (random() * step) / 2;
    default:
      return Math.floor(random() * step);
  }
}
