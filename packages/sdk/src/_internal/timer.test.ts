import { describe, expect, test } from "bun:test";
import { MAX_TIMEOUT_MS, setLongTimeout } from "./timer.ts";

const DAY_MS = 86_400_000;
/** A plain timer to wait on: the event after which a long timer must still not have fired. */
const after = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("setLongTimeout", () => {
  test("a delay longer than one chunk is waited chunk after chunk, not cut to the first", async () => {
    const t0 = performance.now();
    const firedAfter = await new Promise<number>((resolve) => setLongTimeout(() => resolve(performance.now() - t0), 80, { maxChunkMs: 7 }));
    // 12 chunks of 7 ms: a helper that fired after its first chunk (or after 1 ms) would be far below this.
    expect(firedAfter).toBeGreaterThanOrEqual(70);
  });

  test("a 30-day delay in 5 ms chunks keeps re-arming without firing; cancel stops the chain", async () => {
    let fired = 0;
    const cancel = setLongTimeout(() => fired++, 30 * DAY_MS, { maxChunkMs: 5 });
    await after(60); // a dozen chunks have passed
    expect(fired).toBe(0);
    cancel();
    cancel(); // idempotent
    expect(fired).toBe(0);
  });

  test("delays setTimeout cannot hold (30 days, 2^31 ms) and Infinity do not fire early", async () => {
    // With a plain setTimeout each of these fires after 1 ms (TimeoutOverflowWarning).
    const fired: string[] = [];
    const cancels = [
      setLongTimeout(() => fired.push("30d"), 30 * DAY_MS),
      setLongTimeout(() => fired.push("2^31"), MAX_TIMEOUT_MS + 1),
      setLongTimeout(() => fired.push("Infinity"), Infinity),
    ];
    await after(50);
    expect(fired).toEqual([]);
    for (const cancel of cancels) cancel();
  });

  test("short, zero, negative and NaN delays fire like setTimeout: once, never inside the call", async () => {
    const order: string[] = [];
    const all = Promise.all(
      [20, 0, -5, Number.NaN].map((ms) => new Promise<void>((resolve) => setLongTimeout(() => (order.push(`fired ${ms}`), resolve()), ms))),
    );
    order.push("returned");
    await all;
    expect(order[0]).toBe("returned");
    expect(order.slice(1).sort()).toEqual(["fired -5", "fired 0", "fired 20", "fired NaN"]);
  });

  test("a cancelled timer never fires", async () => {
    let fired = 0;
    setLongTimeout(() => fired++, 10)();
    setLongTimeout(() => fired++, 30, { maxChunkMs: 4 })();
    await after(60);
    expect(fired).toBe(0);
  });
});
