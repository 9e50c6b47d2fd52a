/**
 * Cron expressions and when they fire, with the cron switch (`utc` / `timezones`) as one table.
 *
 * OFF (UTC): a classic 5-field expression (minute hour day-of-month month day-of-week; numbers, JAN–DEC /
 * SUN–SAT names, `*`, ranges, `*​/n` and `a-b/n` steps, lists), evaluated in UTC. Refused there: a time
 * zone, 6/7-field (seconds/year) forms, and the `L W # ? +` extensions: this parser is deliberately minimal.
 * ON (time zones): croner's full syntax (5, 6 or 7 fields, `L W # +`), an IANA time zone (validated;
 * default UTC, never the machine's zone), catch-up and a job store (see cron-source.ts).
 * Both take the nicknames people write — `@hourly`, `@daily` (`@midnight`), `@weekly`, `@monthly`,
 * `@yearly` (`@annually`) — as the 5-field expressions Vixie cron gives them, so `@daily` is midnight in
 * the schedule's zone (UTC unless `tz` says otherwise).
 *
 * Why croner rather than a hand-rolled parser: time zones and DST are where hand-rolled cron breaks.
 * DST follows croner, which follows Vixie cron:
 * - a fixed-time job (no wildcard or step in minute and hour, e.g. `30 2 * * *` or `30 1,13 * * *`;
 *   croner's `fixedTimeRule: "no-wildcard"`) whose local time falls in a spring-forward gap runs ONCE,
 *   at the first valid instant after the gap, the same day (02:30 in New York on 2026-03-08 runs at
 *   03:00 EDT = 07:00Z); one whose local time occurs twice at fall-back runs ONCE, at the first
 *   occurrence (01:30 on 2026-11-01 runs at 01:30 EDT = 05:30Z, not again at 01:30 EST).
 * - an interval job (a wildcard or step, e.g. `*​/30 * * * *`) keeps its rhythm in real time: local times
 *   inside the gap do not exist and are skipped, and the repeated hour runs on both passes (they are
 *   different instants, 30 real minutes apart). No instant ever fires twice.
 */
import { Cron } from "croner";
import { AgentdError } from "../wire/errors.ts";

/** The cron switch (`capabilities.cron`), as data: what each mode allows. */
export const CRON_MODES = {
  utc: { syntax: "5-field", timeZones: false, catchUp: false, jobStore: false },
  timezones: { syntax: "croner", timeZones: true, catchUp: true, jobStore: true },
} as const;

/** `utc` (the default): 5-field cron in UTC; `timezones`: time zones, DST, catch-up, a job store. */
export type CronMode = keyof typeof CRON_MODES;

/** Options of a {@link CronSchedule}. */
export interface CronScheduleOptions {
  expression: string;
  /** IANA time zone (`timezones` only). Default UTC. */
  tz?: string;
  /** The cron switch (default `utc`). */
  mode?: CronMode;
}

const NUM = String.raw`\d+`;
const MONTHS = "JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC";
const DAYS = "SUN|MON|TUE|WED|THU|FRI|SAT";
// One 5-field item: `*` or a value or a range, with an optional step; a field is a comma list of items.
const field = (value: string) => {
  const item = `(?:\\*|(?:${value})(?:-(?:${value}))?)(?:/${NUM})?`;
  return new RegExp(`^${item}(?:,${item})*$`, "i");
};
const V1_FIELDS = [field(NUM), field(NUM), field(NUM), field(`${NUM}|${MONTHS}`), field(`${NUM}|${DAYS}`)];
const FIELD_NAMES = ["minute", "hour", "day-of-month", "month", "day-of-week"];

/** The cron nicknames, as Vixie cron defines them (crontab(5)). */
export const CRON_NICKNAMES: Readonly<Record<string, string>> = Object.freeze({
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
});

/** A nickname's 5 fields, the expression itself otherwise; an unknown `@word` is one clear line. */
export function expandCronNickname(expression: string): string {
  const e = expression.trim();
  if (!e.startsWith("@")) return expression;
  const fields = CRON_NICKNAMES[e.toLowerCase()];
  if (fields === undefined)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `cron '${expression}': unknown nickname; use one of ${Object.keys(CRON_NICKNAMES).join(", ")}, or the 5 fields`,
    );
  return fields;
}

function checkV1(expression: string): void {
  const parts = expression.trim().split(/\s+/);
  const bad = (why: string) =>
    new AgentdError("E_CONFIG_INVALID", `cron '${expression}': ${why} (richer cron syntax needs capabilities.cron "timezones")`);
  if (parts.length !== 5) throw bad(`expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  parts.forEach((p, i) => {
    if (!V1_FIELDS[i]?.test(p)) throw bad(`bad ${FIELD_NAMES[i]} field '${p}'`);
  });
}

/** Whether `tz` names a time zone this runtime knows (IANA, e.g. `Europe/Berlin`). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A validated cron expression that answers "when next?" and "which ticks in a window?". */
export class CronSchedule {
  readonly mode: CronMode;
  readonly timeZone: string;
  readonly expression: string;
  private readonly cron: Cron;

  /** Throws `E_CONFIG_INVALID` with one clear line for a bad expression, time zone or mode mismatch. */
  constructor(options: CronScheduleOptions) {
    this.mode = options.mode ?? "utc";
    this.expression = options.expression;
    const rules = CRON_MODES[this.mode];
    if (options.tz !== undefined && !rules.timeZones)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `cron '${options.expression}': tz needs the richer cron (capabilities.cron "timezones"); without it schedules run in UTC`,
      );
    if (options.tz !== undefined && !isTimeZone(options.tz))
      throw new AgentdError("E_CONFIG_INVALID", `cron: unknown time zone '${options.tz}' (use an IANA name such as Europe/Berlin)`);
    this.timeZone = options.tz ?? "UTC";
    const fields = expandCronNickname(options.expression);
    if (rules.syntax === "5-field") checkV1(fields);
    try {
      this.cron = new Cron(fields, {
        paused: true,
        timezone: this.timeZone,
        mode: rules.syntax === "5-field" ? "5-part" : "auto",
        // Vixie cron's OR of day-of-month and day-of-week when both are restricted.
        domAndDow: false,
        fixedTimeRule: "no-wildcard",
      });
    } catch (error) {
      const why = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, "") : String(error);
      throw new AgentdError("E_CONFIG_INVALID", `cron '${options.expression}': ${why}`);
    }
  }

  /** The first tick strictly after `after` (undefined when the expression never fires again). */
  next(after: Date | number): Date | undefined {
    return this.cron.nextRun(new Date(after)) ?? undefined;
  }

  /** The next `count` ticks strictly after `after`, ascending. */
  nextTicks(after: Date | number, count: number): Date[] {
    return this.cron.nextRuns(count, new Date(after));
  }

  /** Up to `count` latest ticks in `(after, upTo]`, ascending. */
  latestTicks(after: Date | number, upTo: Date | number, count: number): Date[] {
    const floor = new Date(after).getTime();
    // previousRuns is exclusive of its reference, and ticks fall on whole seconds: +1 ms makes `upTo` inclusive.
    return this.cron
      .previousRuns(count, new Date(new Date(upTo).getTime() + 1))
      .filter((d) => d.getTime() > floor)
      .reverse();
  }
}
