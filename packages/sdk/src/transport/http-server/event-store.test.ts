import { describe, expect, test } from "bun:test";
import { EventStore, formatEventId, parseEventId } from "./event-store.ts";
import { ReplayBudget } from "./replay-budget.ts";

describe("event ids", () => {
  test("encode the stream and the sequence, and parse back", () => {
    expect(formatEventId(3, 17)).toBe("3.17");
    expect(parseEventId("3.17")).toEqual({ stream: 3, seq: 17 });
    for (const bad of ["", "3", "3.", ".1", "a.1", "1.2.3", "-1.2", "1.2 ", `${"9".repeat(16)}.1`]) expect(parseEventId(bad)).toBeNull();
  });
});

describe("EventStore", () => {
  test("replays one stream's events after a sequence, oldest first, never another stream's", () => {
    const store = new EventStore(10);
    store.append(0, 1, "a1");
    store.append(1, 1, "b1");
    store.append(0, 2, "a2");
    store.append(0, 3, "a3");
    expect(store.after(0, 1).map((e) => e.data)).toEqual(["a2", "a3"]);
    expect(store.after(1, 0).map((e) => e.data)).toEqual(["b1"]);
    expect(store.after(2, 0)).toEqual([]);
  });

  test("holds at most `capacity` events, dropping the oldest", () => {
    const store = new EventStore(3);
    for (let i = 1; i <= 7; i++) store.append(0, i, `e${i}`);
    expect(store.size).toBe(3);
    expect(store.after(0, 0).map((e) => e.seq)).toEqual([5, 6, 7]);
    store.clear();
    expect(store.size).toBe(0);
    expect(store.after(0, 0)).toEqual([]);
  });

  test("capacity 0 keeps nothing", () => {
    const store = new EventStore(0);
    store.append(0, 1, "x");
    expect(store.size).toBe(0);
    expect(store.after(0, 0)).toEqual([]);
  });
});

describe("EventStore.dropStream", () => {
  test("drops one stream's events; the rest keep their order and eviction carries on oldest first", () => {
    const store = new EventStore(4);
    store.append(0, 1, "a1");
    store.append(1, 1, "b1");
    store.append(0, 2, "a2");
    store.append(1, 2, "b2");
    store.dropStream(0);
    expect(store.size).toBe(2);
    expect(store.after(0, 0)).toEqual([]);
    expect(store.after(1, 0).map((e) => e.data)).toEqual(["b1", "b2"]);
    for (let i = 3; i <= 5; i++) store.append(1, i, `b${i}`);
    expect(store.size).toBe(4);
    expect(store.after(1, 0).map((e) => e.seq)).toEqual([2, 3, 4, 5]);
    store.dropStream(7);
    expect(store.size).toBe(4);
  });
});

describe("EventStore byte bounds", () => {
  test("holds at most maxBytes per store, oldest dropped; an event larger than the bound is not kept", () => {
    const store = new EventStore(100, 10);
    store.append(0, 1, "aaaa");
    store.append(0, 2, "bbbb");
    store.append(0, 3, "cccc");
    expect(store.after(0, 0).map((e) => e.seq)).toEqual([2, 3]);
    expect(store.bytes).toBe(8);
    expect(store.append(0, 4, "x".repeat(11))).toBe(false);
    expect(store.after(0, 0).map((e) => e.seq)).toEqual([2, 3]);
  });

  test("a server-wide budget bounds all stores together, the server's oldest event going first", () => {
    const budget = new ReplayBudget(10);
    const a = new EventStore(100, 8, budget);
    const b = new EventStore(100, 8, budget);
    a.append(0, 1, "a1a1");
    b.append(0, 1, "b1b1");
    a.append(0, 2, "a2a2");
    expect(a.after(0, 0).map((e) => e.data)).toEqual(["a2a2"]);
    expect(b.after(0, 0).map((e) => e.data)).toEqual(["b1b1"]);
    expect(budget.bytes).toBe(8);
    b.clear();
    expect(budget.bytes).toBe(4);
    a.dropStream(0);
    expect(budget.bytes).toBe(0);
    // Many appends and drops: the budget's own queue does not grow with traffic.
    for (let i = 0; i < 10_000; i++) {
      a.append(1, i, "z");
      if (i % 3 === 0) a.dropStream(1);
    }
    expect(budget.bytes).toBeLessThanOrEqual(10);
    expect(a.size).toBeLessThanOrEqual(8);
  });
});

describe("EventStore.bytesOf", () => {
  /** What bytesOf must say: the sum over the events still held of that stream. */
  const summed = (store: EventStore, stream: number) => store.after(stream, -1).reduce((n, e) => n + e.data.length, 0);

  test("follows appends, evictions by count, bytes and the server budget, drops and clear", () => {
    const budget = new ReplayBudget(40);
    const store = new EventStore(6, 30, budget);
    const other = new EventStore(100, 100, budget);
    for (let i = 0; i < 200; i++) {
      store.append(i % 3, i, "x".repeat(1 + (i % 7)));
      if (i % 5 === 0) other.append(9, i, "y".repeat(1 + (i % 4)));
      if (i % 11 === 0) store.dropStream(1);
      for (const s of [0, 1, 2]) expect(store.bytesOf(s)).toBe(summed(store, s));
    }
    expect(store.bytesOf(7)).toBe(0);
    store.clear();
    for (const s of [0, 1, 2]) expect(store.bytesOf(s)).toBe(0);
  });

  test("holds the events of more streams than a short list at once: each stream's count, replay and drop stay its own", () => {
    const budget = new ReplayBudget(10_000);
    const store = new EventStore(120, 1_000, budget);
    // 40 streams interleaved, streams added and let go in no particular order, the bounds evicting the oldest.
    for (let i = 0; i < 2_000; i++) {
      const stream = (i * 7) % 40;
      store.append(stream, i, "x".repeat(1 + (i % 9)));
      expect(store.after(stream, i - 1).map((e) => e.seq)).toEqual([i]);
      if (i % 13 === 0) store.dropStream((i * 3) % 40);
      if (i % 97 === 0) for (let s = 0; s < 41; s++) expect(store.bytesOf(s)).toBe(summed(store, s));
    }
    for (let s = 0; s < 40; s++) store.dropStream(s);
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
    expect(budget.bytes).toBe(0);
    for (let s = 0; s < 40; s++) expect(store.bytesOf(s)).toBe(0);
  });
});
