/**
 * Bounded restart: what is left of a child's budget for its next attempt, and how long to wait before it.
 * A restart never resets the budget: usage so far (kept with the retained payload) is subtracted, and the
 * deadline is absolute from the first spawn. A budget already spent is a limit trip, not a restart.
 */
import { backoffDelay, type BackoffPolicy } from "../_internal/backoff.ts";
import type { LocalErrorCode } from "../wire/errors.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { Usage } from "../model/language-model.ts";
import type { SpawnPayload } from "./handle-table.ts";

/** A limit that tripped, as the failure reports it. */
export interface LimitTrip {
  code: LocalErrorCode;
  stopReason: string;
  message: string;
}

/** How restarts are paced: the shared backoff policy (no jitter: a restart schedule reads plainly in the logs). */
export type BackoffOptions = Partial<Pick<BackoffPolicy, "initialDelayMs" | "maxDelayMs">>;

/** The wait before restart number `restart` (1-based): doubling from `initialDelayMs` (250), capped at `maxDelayMs` (5000). */
export function restartDelay(restart: number, options: BackoffOptions = {}): number {
  return backoffDelay(restart - 1, {
    initialDelayMs: options.initialDelayMs ?? 250,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    jitter: "none",
  });
}

/** Tokens as budgets count them (input + output). */
export const tokensOf = (u: Usage): number => u.inputTokens + u.outputTokens;

/** A token trip for `used` over `limit`. */
export const tokenTrip = (used: number, limit: number): LimitTrip => ({
  code: "E_BUDGET_TOKENS",
  stopReason: "max-tokens",
  message: `token budget exceeded: ${used} > ${limit} tokens`,
});

/** The deadline trip. */
export const deadlineTrip = (): LimitTrip => ({ code: "E_BUDGET_DEADLINE", stopReason: "deadline", message: "deadline exceeded" });

/** The limits of the next attempt, or the trip when nothing is left. */
export function remainingLimits(
  payload: SpawnPayload,
  used: { usage: Usage; turns: number },
  now = Date.now(),
): { limits: RunLimits } | { trip: LimitTrip } {
  const l = payload.limits;
  const limits: RunLimits = { ...l };
  if (l.maxTokens !== undefined) {
    const left = l.maxTokens - tokensOf(used.usage);
    if (left <= 0) return { trip: tokenTrip(tokensOf(used.usage), l.maxTokens) };
    limits.maxTokens = left;
  }
  if (l.maxTurns !== undefined) {
    const left = l.maxTurns - used.turns;
    if (left <= 0)
      return {
        trip: {
          code: "E_BUDGET_TURNS",
          stopReason: "max-turns",
          message: `turn budget exhausted: ${used.turns} of ${l.maxTurns} turns used`,
        },
      };
    limits.maxTurns = left;
  }
  if (payload.deadlineAt !== undefined) {
    const left = payload.deadlineAt - now;
    if (left <= 0) return { trip: deadlineTrip() };
    limits.deadlineMs = left;
  }
  return { limits };
}
