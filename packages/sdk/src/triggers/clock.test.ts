import { describe, expect, test } from "bun:test";
import { systemClock } from "./clock.ts";
import { FakeClock } from "./fake-clock.ts";

describe("systemClock", () => {
  test("a long timer is waited in chunks and never fires early", async () => {
    const clock = systemClock({ maxChunkMs: 5 });
    const at = Date.now() + 40;
    const firedAt = await new Promise<number>((resolve) => clock.setTimer(40, () => resolve(Date.now())));
    expect(firedAt).toBeGreaterThanOrEqual(at);
  });

  test("an absolute instant re-reads the wall clock between chunks", async () => {
    const clock = systemClock({ wallCheckMs: 5 });
    const target = new Date(Date.now() + 30);
    const firedAt = await new Promise<number>((resolve) => clock.setTimer(target, () => resolve(Date.now())));
    expect(firedAt).toBeGreaterThanOrEqual(target.getTime());
  });

  test("a cleared timer never fires; a due one fires asynchronously, not inside setTimer", async () => {
    const clock = systemClock({ maxChunkMs: 5 });
    let cleared = 0;
    const h = clock.setTimer(20, () => cleared++);
    clock.clearTimer(h);
    let inside = true;
    const order: string[] = [];
    const due = new Promise<void>((resolve) => {
      clock.setTimer(new Date(Date.now() - 1000), () => {
        order.push(inside ? "sync" : "async");
        resolve();
      });
      inside = false;
    });
    await due;
    // Let a later timer pass the cleared one's instant: it must still not have fired.
    await new Promise<void>((resolve) => clock.setTimer(40, resolve));
    expect(cleared).toBe(0);
    expect(order).toEqual(["async"]);
  });
});

describe("FakeClock", () => {
  test("fires due timers in time order with now() at each instant, including ones armed meanwhile", () => {
    const clock = new FakeClock("2026-01-01T00:00:00Z");
    const seen: string[] = [];
    clock.setTimer(2000, () => seen.push(`b@${clock.now()}`));
    clock.setTimer(new Date("2026-01-01T00:00:01Z"), () => {
      seen.push(`a@${clock.now()}`);
      clock.setTimer(500, () => seen.push(`c@${clock.now()}`));
    });
    const t0 = clock.now();
    expect(clock.advance(5000)).toBe(3);
    expect(seen).toEqual([`a@${t0 + 1000}`, `c@${t0 + 1500}`, `b@${t0 + 2000}`]);
    expect(clock.now()).toBe(t0 + 5000);
  });

  test("skew moves time without firing; the next advance fires late", () => {
    const clock = new FakeClock(0);
    let firedAt = -1;
    clock.setTimer(1000, () => (firedAt = clock.now()));
    clock.skew(5000);
    expect(firedAt).toBe(-1);
    clock.advance(0);
    expect(firedAt).toBe(5000);
  });

  test("whenPending resolves when a timer is armed", async () => {
    const clock = new FakeClock(0);
    const p = clock.whenPending(2);
    clock.setTimer(1, () => {});
    clock.setTimer(2, () => {});
    await p;
    expect(clock.pending).toBe(2);
  });
});
