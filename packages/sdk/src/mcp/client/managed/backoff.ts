/**
 * Reconnect pacing for a managed MCP connection: bounded exponential backoff with "full jitter" (AWS
 * Architecture Blog, "Exponential Backoff And Jitter"): the wait before attempt n is uniform in
 * [0, min(max, initial · 2ⁿ)], so clients dropped together by one server restart spread out again.
 */
import { backoffDelay } from "../../../_internal/backoff.ts";
import { withoutUndefined } from "../../../_internal/without-undefined.ts";

/** How a managed client paces reconnect attempts. */
export interface ReconnectPolicy {
  /** Upper bound of the first wait (ms). Default 250. */
  initialDelayMs: number;
  /** Upper bound of any wait (ms). Default 30 000. */
  maxDelayMs: number;
  /** Attempts per outage before giving up (default Infinity: keep trying). */
  maxAttempts: number;
}

/** The defaults of {@link ReconnectPolicy}. */
export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = { initialDelayMs: 250, maxDelayMs: 30_000, maxAttempts: Number.POSITIVE_INFINITY };

/** Merge user options over the defaults, rejecting nonsense with one clear line. */
export function reconnectPolicy(options: Partial<ReconnectPolicy> = {}): ReconnectPolicy {
  const p = { ...DEFAULT_RECONNECT_POLICY, ...withoutUndefined(options) };
  if (!(p.initialDelayMs >= 0) || !(p.maxDelayMs >= p.initialDelayMs) || !(p.maxAttempts >= 1))
    throw new RangeError("reconnect: need 0 <= initialDelayMs <= maxDelayMs and maxAttempts >= 1");
  return p;
}

/** The wait before reconnect attempt `attempt` (0-based): full jitter under a bounded exponential cap. */
export function reconnectBackoff(attempt: number, policy: ReconnectPolicy, random: () => number = Math.random): number {
  return backoffDelay(attempt, { initialDelayMs: policy.initialDelayMs, maxDelayMs: policy.maxDelayMs, jitter: "full" }, random);
}

/** Re-exported for the managed client. */
export { sleep } from "../../../_internal/sleep.ts";
