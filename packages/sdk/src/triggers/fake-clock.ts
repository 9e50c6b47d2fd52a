/**
 * A clock that moves only when told, for deterministic tests of anything time-driven (cron across DST,
 * intervals, debounce windows, stop grace): no real waiting.
 */
import type { Clock, TimerHandle } from "./clock.ts";

interface FakeTimer extends TimerHandle {
  seq: number;
  fn: () => void;
}

/** A {@link Clock} whose time advances only through {@link FakeClock.advance} / {@link FakeClock.advanceTo}. */
export class FakeClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(start: Date | string | number = 0) {
    this.time = typeof start === "number" ? start : new Date(start).getTime();
  }

  now(): number {
    return this.time;
  }

  setTimer(when: Date | number, fn: () => void): TimerHandle {
    const at = when instanceof Date ? when.getTime() : this.time + Math.max(0, when);
    const timer: FakeTimer = { at, seq: this.seq++, fn };
    this.timers.add(timer);
    this.notify();
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle as FakeTimer);
  }

  /** How many timers are armed. */
  get pending(): number {
    return this.timers.size;
  }

  /** The instant of the earliest armed timer, if any. */
  get nextAt(): number | undefined {
    return this.earliest()?.at;
  }

  /**
   * Move time forward by `ms`, firing every timer that falls due, in time order, with `now()` set to each
   * timer's instant while it runs (timers armed by a callback fire too when they fall inside the step).
   * Returns how many fired. Callbacks run synchronously; wait for their async effects by event.
   */
  advance(ms: number): number {
    return this.advanceTo(this.time + ms);
  }

  /** Move time forward to `until` (see {@link advance}). */
  advanceTo(until: Date | string | number): number {
    const target = typeof until === "number" ? until : new Date(until).getTime();
    let fired = 0;
    for (;;) {
      const next = this.earliest();
      if (!next || next.at > target) break;
      this.timers.delete(next);
      this.time = Math.max(this.time, next.at);
      fired++;
      next.fn();
    }
    this.time = Math.max(this.time, target);
    return fired;
  }

  /**
   * Step the wall clock by `ms` WITHOUT firing timers, as when the process was suspended or NTP stepped
   * the clock: timers that fell due fire on the next advance, late.
   */
  skew(ms: number): void {
    this.time += ms;
  }

  /** Jump to the earliest armed timer and fire it (and any due at the same instant). Returns the instant. */
  advanceToNext(): number | undefined {
    const at = this.nextAt;
    if (at !== undefined) this.advanceTo(at);
    return at;
  }

  /** Resolves once at least `count` timers are armed (at once if they already are). */
  whenPending(count = 1): Promise<void> {
    if (this.timers.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  }

  private notify(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (w && this.timers.size >= w.count) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}
