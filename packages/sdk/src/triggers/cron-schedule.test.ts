import { describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { CronSchedule } from "./cron-schedule.ts";

/**
 * Expected instants worked out by hand from the rules (not from the library):
 * America/New_York 2026: EST = UTC-5, EDT = UTC-4; 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
 * Europe/Berlin 2026:   CET = UTC+1, CEST = UTC+2; 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
 * Fixed-time jobs: a gap time runs once at the first instant after the gap; a repeated time runs once,
 * at its first occurrence. Interval jobs keep their rhythm in real time (gap times skipped, both passes
 * of a repeated hour run).
 */
const DST_CASES: Array<{ name: string; tz: string; cron: string; from: string; expect: string[] }> = [
  {
    name: "NY 01:30 across spring forward (01:30 exists, before the gap)",
    tz: "America/New_York",
    cron: "30 1 * * *",
    from: "2026-03-06T12:00:00Z",
    expect: ["2026-03-07T06:30:00.000Z", "2026-03-08T06:30:00.000Z", "2026-03-09T05:30:00.000Z"],
  },
  {
    name: "NY 02:30 on the spring-forward day runs once, at 03:00 EDT",
    tz: "America/New_York",
    cron: "30 2 * * *",
    from: "2026-03-06T12:00:00Z",
    expect: ["2026-03-07T07:30:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"],
  },
  {
    name: "NY every 30 min across spring forward: 02:00 and 02:30 do not exist",
    tz: "America/New_York",
    cron: "*/30 * * * *",
    from: "2026-03-08T05:45:00Z", // 00:45 EST
    // 01:00 EST, 01:30 EST, 03:00 EDT, 03:30 EDT
    expect: ["2026-03-08T06:00:00.000Z", "2026-03-08T06:30:00.000Z", "2026-03-08T07:00:00.000Z", "2026-03-08T07:30:00.000Z"],
  },
  {
    name: "NY 01:30 on the fall-back day runs once, at 01:30 EDT",
    tz: "America/New_York",
    cron: "30 1 * * *",
    from: "2026-10-30T12:00:00Z",
    expect: ["2026-10-31T05:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"],
  },
  {
    name: "NY 02:30 across fall back (02:30 exists once, in EST)",
    tz: "America/New_York",
    cron: "30 2 * * *",
    from: "2026-10-30T12:00:00Z",
    expect: ["2026-10-31T06:30:00.000Z", "2026-11-01T07:30:00.000Z", "2026-11-02T07:30:00.000Z"],
  },
  {
    name: "NY every 30 min across fall back: the repeated hour runs on both passes",
    tz: "America/New_York",
    cron: "*/30 * * * *",
    from: "2026-11-01T04:15:00Z", // 00:15 EDT
    // 00:30 EDT, 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST, 02:00 EST
    expect: [
      "2026-11-01T04:30:00.000Z",
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T06:00:00.000Z",
      "2026-11-01T06:30:00.000Z",
      "2026-11-01T07:00:00.000Z",
    ],
  },
  {
    name: "Berlin 01:30 across spring forward",
    tz: "Europe/Berlin",
    cron: "30 1 * * *",
    from: "2026-03-27T12:00:00Z",
    expect: ["2026-03-28T00:30:00.000Z", "2026-03-29T00:30:00.000Z", "2026-03-29T23:30:00.000Z"],
  },
  {
    name: "Berlin 02:30 on the spring-forward day runs once, at 03:00 CEST",
    tz: "Europe/Berlin",
    cron: "30 2 * * *",
    from: "2026-03-27T12:00:00Z",
    expect: ["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"],
  },
  {
    name: "Berlin every 30 min across spring forward",
    tz: "Europe/Berlin",
    cron: "*/30 * * * *",
    from: "2026-03-28T23:45:00Z", // 00:45 CET
    // 01:00 CET, 01:30 CET, 03:00 CEST, 03:30 CEST
    expect: ["2026-03-29T00:00:00.000Z", "2026-03-29T00:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-29T01:30:00.000Z"],
  },
  {
    name: "Berlin 01:30 across fall back (before the repeated hour)",
    tz: "Europe/Berlin",
    cron: "30 1 * * *",
    from: "2026-10-23T12:00:00Z",
    expect: ["2026-10-23T23:30:00.000Z", "2026-10-24T23:30:00.000Z", "2026-10-26T00:30:00.000Z"],
  },
  {
    name: "Berlin 02:30 on the fall-back day runs once, at 02:30 CEST",
    tz: "Europe/Berlin",
    cron: "30 2 * * *",
    from: "2026-10-23T12:00:00Z",
    expect: ["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"],
  },
  {
    name: "Berlin every 30 min across fall back: 02:00 and 02:30 on both passes",
    tz: "Europe/Berlin",
    cron: "*/30 * * * *",
    from: "2026-10-24T23:45:00Z", // 01:45 CEST
    // 02:00 CEST, 02:30 CEST, 02:00 CET, 02:30 CET, 03:00 CET
    expect: [
      "2026-10-25T00:00:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-25T01:00:00.000Z",
      "2026-10-25T01:30:00.000Z",
      "2026-10-25T02:00:00.000Z",
    ],
  },
  {
    name: "a list of hours is a fixed-time job too: 01:30 runs once on fall back (Vixie rule)",
    tz: "America/New_York",
    cron: "30 1,13 * * *",
    from: "2026-10-31T12:00:00Z",
    expect: ["2026-10-31T17:30:00.000Z", "2026-11-01T05:30:00.000Z", "2026-11-01T18:30:00.000Z"],
  },
];

describe("CronSchedule, time-zone cron: time zones and DST", () => {
  for (const c of DST_CASES)
    test(c.name, () => {
      const s = new CronSchedule({ expression: c.cron, tz: c.tz, mode: "timezones" });
      expect(s.nextTicks(new Date(c.from), c.expect.length).map((d) => d.toISOString())).toEqual(c.expect);
    });

  test("an unknown time zone is refused with one clear line", () => {
    const err = (() => {
      try {
        new CronSchedule({ expression: "0 7 * * *", tz: "Mars/Olympus", mode: "timezones" });
      } catch (e) {
        return e;
      }
    })();
    expect(AgentdError.isInstance(err) && err.code).toBe("E_CONFIG_INVALID");
    expect((err as Error).message).toBe("cron: unknown time zone 'Mars/Olympus' (use an IANA name such as Europe/Berlin)");
  });

  test("no tz means UTC, never the machine's zone; 6/7-field and nicknames are accepted", () => {
    expect(new CronSchedule({ expression: "0 7 * * *", mode: "timezones" }).next(new Date("2026-06-01T00:00:00Z"))?.toISOString()).toBe(
      "2026-06-01T07:00:00.000Z",
    );
    expect(new CronSchedule({ expression: "30 0 7 * * *", mode: "timezones" }).next(new Date("2026-06-01T00:00:00Z"))?.toISOString()).toBe(
      "2026-06-01T07:00:30.000Z",
    );
    expect(new CronSchedule({ expression: "@daily", mode: "timezones" }).next(new Date("2026-06-01T05:00:00Z"))?.toISOString()).toBe(
      "2026-06-02T00:00:00.000Z",
    );
    expect(new CronSchedule({ expression: "0 9 L * *", mode: "timezones" }).next(new Date("2026-02-01T00:00:00Z"))?.toISOString()).toBe(
      "2026-02-28T09:00:00.000Z",
    );
  });

  test("a nickname in a time zone is that zone's midnight (or hour, week, month)", () => {
    const berlin = (expression: string) =>
      new CronSchedule({ expression, mode: "timezones", tz: "Europe/Berlin" }).next(new Date("2026-06-10T05:20:00Z"))?.toISOString();
    expect(berlin("@daily")).toBe("2026-06-10T22:00:00.000Z"); // 00:00 CEST
    expect(berlin("@hourly")).toBe("2026-06-10T06:00:00.000Z");
    expect(berlin("@weekly")).toBe("2026-06-13T22:00:00.000Z"); // Sunday 00:00 CEST
    expect(berlin("@monthly")).toBe("2026-06-30T22:00:00.000Z");
    expect(berlin("@yearly")).toBe("2026-12-31T23:00:00.000Z"); // 00:00 CET
  });
});

describe("CronSchedule, UTC cron (the default)", () => {
  test("5 fields, evaluated in UTC", () => {
    const s = new CronSchedule({ expression: "30 2 * * *" });
    expect(s.mode).toBe("utc");
    expect(s.timeZone).toBe("UTC");
    // Across New York's and Berlin's DST days nothing moves: UTC has no DST.
    expect(s.nextTicks(new Date("2026-03-07T12:00:00Z"), 3).map((d) => d.toISOString())).toEqual([
      "2026-03-08T02:30:00.000Z",
      "2026-03-09T02:30:00.000Z",
      "2026-03-10T02:30:00.000Z",
    ]);
    const weekdays = new CronSchedule({ expression: "0 7 * JAN-DEC mon-fri" });
    expect(weekdays.next(new Date("2026-05-01T08:00:00Z"))?.toISOString()).toBe("2026-05-04T07:00:00.000Z"); // Fri → Mon
    expect(new CronSchedule({ expression: "*/15 9-17/2 1,15 * *" }).next(new Date("2026-05-01T09:50:00Z"))?.toISOString()).toBe(
      "2026-05-01T11:00:00.000Z",
    );
  });

  const refused: Array<[string, string]> = [
    ["0 0 7 * * *", "expected 5 fields (minute hour day-of-month month day-of-week), got 6"],
    ["0 0 7 * * * 2027", "got 7"],
    ["0 9 L * *", "bad day-of-month field 'L'"],
    ["0 9 ? * MON", "bad day-of-month field '?'"],
    ["0 9 * * MON#1", "bad day-of-week field 'MON#1'"],
    ["0 9 * * +MON", "bad day-of-week field '+MON'"],
    ["0 9 15W * *", "bad day-of-month field '15W'"],
    ["0 9 * * *", ""], // fine
  ];
  for (const [expression, why] of refused)
    test(`'${expression}' ${why ? "is refused" : "is accepted"}`, () => {
      const make = () => new CronSchedule({ expression });
      if (!why) return void expect(make().expression).toBe(expression);
      expect(make).toThrow(why);
      expect(make).toThrow('(richer cron syntax needs capabilities.cron "timezones")');
    });

  test("the nicknames people write are their 5 fields, in UTC; an unknown one is named", () => {
    const after = new Date("2026-06-10T05:20:00Z"); // a Wednesday
    const next = (expression: string) => new CronSchedule({ expression }).next(after)?.toISOString();
    expect(next("@hourly")).toBe("2026-06-10T06:00:00.000Z");
    expect(next("@daily")).toBe("2026-06-11T00:00:00.000Z");
    expect(next("@midnight")).toBe("2026-06-11T00:00:00.000Z");
    expect(next("@weekly")).toBe("2026-06-14T00:00:00.000Z"); // Sunday
    expect(next("@monthly")).toBe("2026-07-01T00:00:00.000Z");
    expect(next("@yearly")).toBe("2027-01-01T00:00:00.000Z");
    expect(next("@annually")).toBe("2027-01-01T00:00:00.000Z");
    expect(next(" @DAILY ")).toBe("2026-06-11T00:00:00.000Z");
    expect(() => new CronSchedule({ expression: "@reboot" })).toThrow(
      "cron '@reboot': unknown nickname; use one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, or the 5 fields",
    );
    expect(() => new CronSchedule({ expression: "@fortnightly", mode: "timezones" })).toThrow("unknown nickname");
  });

  test("UTC even when the process runs in another zone", () => {
    const saved = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      expect(new Date("2026-06-01T00:00:00Z").getHours()).toBe(20); // the zone switch took effect
      const s = new CronSchedule({ expression: "0 7 * * *" });
      expect(s.next(new Date("2026-06-01T00:00:00Z"))?.toISOString()).toBe("2026-06-01T07:00:00.000Z");
      const on = new CronSchedule({ expression: "0 7 * * *", mode: "timezones" });
      expect(on.next(new Date("2026-06-01T00:00:00Z"))?.toISOString()).toBe("2026-06-01T07:00:00.000Z");
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  test("a time zone is refused", () => {
    expect(() => new CronSchedule({ expression: "0 7 * * *", tz: "Europe/Berlin" })).toThrow(
      `cron '0 7 * * *': tz needs the richer cron (capabilities.cron "timezones"); without it schedules run in UTC`,
    );
  });

  test("out-of-range values are refused by the parser, as one line", () => {
    expect(() => new CronSchedule({ expression: "61 * * * *" })).toThrow("cron '61 * * * *':");
  });
});
