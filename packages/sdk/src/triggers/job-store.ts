/**
 * Where a cron schedule keeps the instant up to which its ticks are accounted for (its last fire, or
 * its first start), so that after a restart the missed ticks are computed from it (time-zone cron).
 */

/** A persistent map from schedule id to the ISO instant of its last fire. */
export interface JobStore {
  /** The stored instant, or undefined when the schedule was never recorded. */
  get(scheduleId: string): Promise<string | undefined>;
  /** Record `lastFireIso` (callers only move it forward). */
  set(scheduleId: string, lastFireIso: string): Promise<void>;
  /** Release what it holds (a store connection), when the triggers stop. */
  close?(): Promise<void>;
}

/** A job store in memory: survives a source's restart inside one process (tests, embedding). */
export class MemoryJobStore implements JobStore {
  readonly entries = new Map<string, string>();

  async get(scheduleId: string): Promise<string | undefined> {
    return this.entries.get(scheduleId);
  }

  async set(scheduleId: string, lastFireIso: string): Promise<void> {
    this.entries.set(scheduleId, lastFireIso);
  }
}
