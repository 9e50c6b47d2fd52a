import { expect, test } from "bun:test";
import { DURATION_FORMS, durationProblem, formatDuration, parseDuration } from "./duration.ts";
import { expandEnv } from "./expand.ts";

test("parseDuration accepts the usual forms and rejects the rest", () => {
  expect(parseDuration("500ms")).toBe(500);
  expect(parseDuration("2s")).toBe(2000);
  expect(parseDuration("1h30m")).toBe(5_400_000);
  expect(parseDuration("0")).toBe(0);
  expect(parseDuration(0)).toBe(0);
  expect(parseDuration("1.5s")).toBe(1500);
  expect(parseDuration("30d")).toBe(2_592_000_000); // past setTimeout's 2^31-1 ms: timers chunk it
  expect(parseDuration("9".repeat(400))).toBeUndefined(); // would be Infinity
  expect(parseDuration(`${"9".repeat(400)}d`)).toBeUndefined();
  for (const bad of ["", "abc", "5 minutes", "10x", "-1s", "s"]) expect(parseDuration(bad)).toBeUndefined();
  expect(parseDuration(-5)).toBeUndefined();
});

test("a bare number is not a duration: a unit is required, and the line says which forms are", () => {
  // A bare number used to be milliseconds: `--interval 5` re-ran every ~6 ms.
  for (const bare of ["5", "250", "1.5", " 60 "]) expect(parseDuration(bare)).toBeUndefined();
  for (const bare of [5, 250, 60_000]) expect(parseDuration(bare)).toBeUndefined();
  expect(durationProblem("5")).toBe("a bare number has no unit: put ms, s, m, h or d after it");
  expect(durationProblem(60)).toStartWith("a bare number has no unit");
  expect(durationProblem("soon")).toBe(`expected ${DURATION_FORMS}`);
});

test("formatDuration", () => {
  expect(formatDuration(250)).toBe("250ms");
  expect(formatDuration(90_000)).toBe("1m30s");
});

test("expandEnv expands, defaults, escapes and names missing variables", () => {
  const env = { TOKEN: "abc" };
  expect(expandEnv({ h: { Authorization: "Bearer ${TOKEN}" } }, env)).toEqual({ h: { Authorization: "Bearer abc" } });
  expect(expandEnv("${NOPE:-x}", env)).toBe("x");
  expect(expandEnv("$${TOKEN}", env)).toBe("${TOKEN}");
  expect(() => expandEnv({ a: ["${MISSING}"] }, env)).toThrow("config.a[0]: environment variable MISSING is not set");
});
