import { describe as group, expect, test } from "bun:test";
import { describe, judge, LIMITS, rpsNotJudged } from "./perf-guard.ts";

group("perf guard verdicts", () => {
  test("a rate is judged on the best run of each side; below the limit fails", () => {
    // Best of three each: 21,000 over 36,000 passes; the regression's 10,800 does not.
    const ok = judge("HTTP", [18_000, 21_000, 20_000], [30_000, 36_000, 33_000], "req/s", "higher", LIMITS.httpRatio);
    expect(ok.ratio).toBeCloseTo(21_000 / 36_000);
    expect(ok.pass).toBe(true);
    const slow = judge("HTTP", [9_000, 10_800, 10_100], [36_000, 37_900, 35_000], "req/s", "higher", LIMITS.httpRatio);
    expect(slow.pass).toBe(false);
    expect(describe(slow)).toBe("perf guard: HTTP: agentd 10,800 req/s, floor 37,900 req/s: 0.28× (fails below 0.5×) — FAILED");
  });

  test("a latency or a cost is judged on the lowest run of each side; above the limit fails", () => {
    const ok = judge("stdio", [40, 33.1, 35], [25, 22.5, 23], "µs", "lower", LIMITS.stdioRatio);
    expect(ok.pass).toBe(true);
    expect(describe(ok)).toBe("perf guard: stdio: agentd 33.1 µs, floor 22.5 µs: 1.5× (fails above 2.5×) — ok");
    expect(judge("stdio", [70, 80, 90], [22.5, 23, 25], "µs", "lower", LIMITS.stdioRatio).pass).toBe(false);
  });

  test("a figure shown beside the judged one says so and carries no verdict", () => {
    const shown = { ...judge("rps", [25_200], [36_800], "req/s", "higher", LIMITS.httpRatio), notJudged: "load average 16.5 on 2 cores" };
    expect(describe(shown)).toBe(
      "perf guard: rps: agentd 25,200 req/s, floor 36,800 req/s: 0.68× (shown, not judged: load average 16.5 on 2 cores)",
    );
  });

  test("requests/s are judged only with wrk on a machine whose load average is below its core count", () => {
    expect(rpsNotJudged("wrk", 0.7, 2)).toBeUndefined();
    expect(rpsNotJudged("wrk", 15.07, 2)).toBe("load average 15.1 on 2 cores");
    expect(rpsNotJudged("bun", 0.2, 2)).toBe("the Bun load generator tops out near the floor's rate");
  });
});
