/**
 * Missed-tick catch-up (time-zone cron): what to do with cron ticks whose instant passed while agentd was down
 * (or asleep). `none` fires none of them; `latest` fires the most recent one; `all:N` fires each, but at
 * most the N most recent (older ones are logged as omitted). Default bound: 100.
 */
import { AgentdError } from "../wire/errors.ts";
import type { CronSchedule } from "./cron-schedule.ts";

/** A catch-up policy. */
export type CatchUp = { mode: "none" } | { mode: "latest" } | { mode: "all"; limit: number };

/** The bound of `all` when none is given. */
export const DEFAULT_CATCH_UP_LIMIT = 100;

/** Parse `"none" | "latest" | "all" | "all:N"`; throws `E_CONFIG_INVALID` otherwise. */
export function parseCatchUp(text: string): CatchUp {
  if (text === "none" || text === "latest") return { mode: text };
  const m = /^all(?::(\d+))?$/.exec(text);
  const limit = m ? (m[1] === undefined ? DEFAULT_CATCH_UP_LIMIT : Number(m[1])) : Number.NaN;
  if (!m || !Number.isSafeInteger(limit) || limit < 1)
    throw new AgentdError("E_CONFIG_INVALID", `catchUp '${text}': expected "none", "latest", "all" or "all:N" (N ≥ 1)`);
  return { mode: "all", limit };
}

/** The ticks in `(after, upTo]` that `policy` fires, ascending; `omitted` when the bound cut older ones. */
export function missedTicks(schedule: CronSchedule, after: number, upTo: number, policy: CatchUp): { ticks: Date[]; omitted: boolean } {
  if (policy.mode === "none" || upTo <= after) return { ticks: [], omitted: false };
  if (policy.mode === "latest") {
    const ticks = schedule.latestTicks(after, upTo, 1);
    return { ticks, omitted: false };
  }
  // One more than the bound tells whether older ticks were cut off.
  const ticks = schedule.latestTicks(after, upTo, policy.limit + 1);
  const omitted = ticks.length > policy.limit;
  return { ticks: omitted ? ticks.slice(1) : ticks, omitted };
}
