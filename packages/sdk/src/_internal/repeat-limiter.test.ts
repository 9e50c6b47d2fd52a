import { describe, expect, test } from "bun:test";
import { memoryLogger } from "../log.ts";
import { limitRepeats } from "./repeat-limiter.ts";

/** A timer the test fires by hand: no waiting on the clock. */
function manualTimers() {
  const pending = new Set<() => void>();
  return {
    setTimer: (fn: () => void) => {
      pending.add(fn);
      return () => pending.delete(fn);
    },
    fireAll() {
      const due = [...pending];
      pending.clear();
      for (const fn of due) fn();
    },
    get count() {
      return pending.size;
    },
  };
}

describe("limitRepeats", () => {
  test("first occurrence at once; the rest of the window as one summary with the count and the last fields", () => {
    const logger = memoryLogger();
    const timers = manualTimers();
    const r = limitRepeats(logger, { windowMs: 1000, setTimer: timers.setTimer });
    for (let i = 0; i < 500; i++) r.warn("mcp.unknown_response", { id: i });
    expect(logger.records.map((x) => [x.level, x.event, x.id, x.repeated])).toEqual([["warn", "mcp.unknown_response", 0, undefined]]);
    timers.fireAll();
    expect(logger.records.at(-1)).toMatchObject({ level: "warn", event: "mcp.unknown_response", id: 499, repeated: 499, windowMs: 1000 });
    // A steady flood: one summary a window.
    for (let i = 0; i < 10; i++) r.warn("mcp.unknown_response", { id: 1000 + i });
    expect(logger.records).toHaveLength(2);
    timers.fireAll();
    expect(logger.records.at(-1)).toMatchObject({ id: 1009, repeated: 10 });
    // A quiet window ends without a line; the next occurrence is logged at once again.
    timers.fireAll();
    expect(logger.records).toHaveLength(3);
    expect(timers.count).toBe(0);
    r.warn("mcp.unknown_response", { id: 7 });
    expect(logger.records.at(-1)).toMatchObject({ id: 7 });
    expect(logger.records.at(-1)?.repeated).toBeUndefined();
  });

  test("keys are counted apart; flush sums up what is pending and stops the timers", () => {
    const logger = memoryLogger();
    const timers = manualTimers();
    const r = limitRepeats(logger, { setTimer: timers.setTimer });
    for (const why of ["origin", "auth", "origin", "auth", "auth"]) r.warn("http.refused", { why }, why);
    expect(logger.records.map((x) => x.why)).toEqual(["origin", "auth"]);
    r.flush();
    expect(logger.records.slice(2).map((x) => [x.why, x.repeated])).toEqual([
      ["origin", 1],
      ["auth", 2],
    ]);
    expect(timers.count).toBe(0);
  });

  test("past maxKeys a new key is logged without limiting (never dropped)", () => {
    const logger = memoryLogger();
    const r = limitRepeats(logger, { maxKeys: 1, setTimer: manualTimers().setTimer });
    r.warn("a");
    r.warn("b");
    r.warn("b");
    r.warn("a");
    expect(logger.records.map((x) => x.event)).toEqual(["a", "b", "b"]);
  });
});
