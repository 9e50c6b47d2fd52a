/**
 * A cron schedule as an event source: one event per tick, at the tick's instant (read from the clock, so
 * tests drive it with a fake one). Each event's run id is derived from the schedule id and the tick's ISO
 * instant, so a tick fired twice (caught up after a crash mid-run) is recognisably the same work.
 *
 * The time-zone cron adds, to the default UTC cron (5-field, no catch-up, no store; see cron-schedule.ts):
 * - catch-up: at start, ticks in (stored last fire, now] are "missed" and fired per the policy
 *   (catch-up.ts); so are ticks the clock skipped past while the process was asleep;
 * - a job store: the latest tick whose run ENDED (or was covered by a later one) is recorded, so a run
 *   cut short by a crash or an aborted stop is caught up again after a restart (at least once; the
 *   stable run id makes it idempotent). A first start records "now" as the baseline. Failures of the
 *   run itself are recorded too: a failing job is not re-run on every restart.
 *
 * Each tick is its own coalescing key (`<scheduleId>@<tick ISO>`): ticks are occurrences, not states of
 * one thing, so under `queue` every caught-up tick runs, while `skip` runs the current one and the newest
 * of those that arrive meanwhile.
 */
import { AgentdError } from "../wire/errors.ts";
import { missedTicks, parseCatchUp, type CatchUp } from "./catch-up.ts";
import type { Clock, TimerHandle } from "./clock.ts";
import { CRON_MODES, CronSchedule, type CronMode } from "./cron-schedule.ts";
import type { JobStore } from "./job-store.ts";
import { cronRunId } from "./run-id.ts";
import type { EmitResult, EventSource, SourceContext } from "./types.ts";

/** Options of a {@link CronSource}. */
export interface CronSourceOptions {
  expression: string;
  /** IANA time zone (time-zone cron only; default UTC). */
  tz?: string;
  /** Missed-tick policy (time-zone cron only; default `none`): `"none" | "latest" | "all" | "all:N"`. */
  catchUp?: CatchUp | string;
  /** Where the last fire is kept across restarts (time-zone cron only). */
  jobStore?: JobStore;
  /** Key in the job store and part of every run id (default: the trigger id). */
  scheduleId?: string;
  /** The cron switch (default `utc`). */
  mode?: CronMode;
  /** Default: the router's clock. */
  clock?: Clock;
}

/** Emits one event per cron tick. See the module header. */
export class CronSource implements EventSource {
  readonly kind = "cron" as const;
  readonly schedule: CronSchedule;
  private readonly catchUp: CatchUp;
  private context: SourceContext | undefined;
  private clock: Clock | undefined;
  private scheduleId = "";
  private timer: TimerHandle | undefined;
  private stopped = false;
  private recorded = Number.NEGATIVE_INFINITY;
  private writes: Promise<void> = Promise.resolve();
  private readonly outstanding = new Set<Promise<void>>();

  /** Validates everything now: a bad expression, zone, policy or a time-zone option under the UTC cron throws `E_CONFIG_INVALID`. */
  constructor(private readonly options: CronSourceOptions) {
    const mode = options.mode ?? "utc";
    this.schedule = new CronSchedule({ expression: options.expression, tz: options.tz, mode });
    this.catchUp = typeof options.catchUp === "string" ? parseCatchUp(options.catchUp) : (options.catchUp ?? { mode: "none" });
    const rules = CRON_MODES[mode];
    const off = (what: string) =>
      new AgentdError("E_CONFIG_INVALID", `cron '${options.expression}': ${what} needs the richer cron (capabilities.cron "timezones")`);
    if (!rules.catchUp && this.catchUp.mode !== "none") throw off("catchUp");
    if (!rules.jobStore && options.jobStore) throw off("a job store");
  }

  async start(context: SourceContext): Promise<void> {
    this.context = context;
    const clock = (this.clock = this.options.clock ?? context.clock);
    this.scheduleId = this.options.scheduleId ?? context.triggerId;
    const now = clock.now();
    const store = this.options.jobStore;
    if (store) {
      const stored = await store.get(this.scheduleId);
      const last = stored === undefined ? Number.NaN : Date.parse(stored);
      if (Number.isNaN(last)) {
        await this.record(now); // a store that cannot be written fails start, not silently later
      } else {
        this.recorded = last;
        this.fireMissed(Math.min(last, now), now);
      }
    }
    this.arm(now);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer && this.clock) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    // Records follow runs: wait for the runs this source caused to settle, then for the writes.
    await Promise.all(this.outstanding);
    await this.writes;
  }

  private arm(after: number): void {
    if (this.stopped) return;
    const next = this.schedule.next(after);
    if (!next) {
      this.context?.logger.warn("trigger.cron-exhausted", { expression: this.schedule.expression });
      this.context?.end();
      return;
    }
    this.timer = (this.clock as Clock).setTimer(next, () => this.onTick(next));
  }

  private onTick(tick: Date): void {
    this.timer = undefined;
    if (this.stopped) return;
    this.fire(tick, false);
    const now = (this.clock as Clock).now();
    // Asleep past further ticks (a suspended VM, a clock step): they are missed ticks like downtime's.
    this.fireMissed(tick.getTime(), now);
    this.arm(Math.max(now, tick.getTime()));
  }

  private fireMissed(after: number, now: number): void {
    if (this.catchUp.mode === "none" || now <= after) return;
    const { ticks, omitted } = missedTicks(this.schedule, after, now, this.catchUp);
    if (ticks.length > 0 || omitted)
      this.context?.logger.info("trigger.catch-up", {
        scheduleId: this.scheduleId,
        policy: this.catchUp.mode,
        firing: ticks.length,
        omittedOlder: omitted,
      });
    for (const tick of ticks) this.fire(tick, true);
  }

  private fire(tick: Date, catchUp: boolean): void {
    const context = this.context as SourceContext;
    const iso = tick.toISOString();
    const result = context.emit({
      triggerId: context.triggerId,
      kind: "cron",
      key: `${this.scheduleId}@${iso}`,
      at: new Date((this.clock as Clock).now()),
      data: { tick: iso, scheduleId: this.scheduleId, catchUp },
      runId: cronRunId(this.scheduleId, iso),
    });
    if (!this.options.jobStore) return;
    const tracked = result.then((r: EmitResult) => {
      if (r.status !== "dropped" && r.outcome.status !== "aborted") void this.record(tick.getTime()).catch(() => {});
    });
    this.outstanding.add(tracked);
    void tracked.finally(() => this.outstanding.delete(tracked));
  }

  // Monotonic: runs may end out of order (parallel), the stored instant only moves forward.
  private record(at: number): Promise<void> {
    const store = this.options.jobStore;
    if (!store || at <= this.recorded) return Promise.resolve();
    this.recorded = at;
    const iso = new Date(at).toISOString();
    const write = this.writes.then(() => store.set(this.scheduleId, iso));
    this.writes = write.catch((error: unknown) => {
      this.context?.logger.warn("trigger.job-store-failed", { scheduleId: this.scheduleId, error: String(error) });
    });
    return write;
  }
}
