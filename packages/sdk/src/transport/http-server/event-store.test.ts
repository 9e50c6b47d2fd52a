import { describe, expect, test } from "bun:test";
import { EventStore, formatEventId, parseEventId } from "./event-store.ts";

describe("event ids", () => {
  test("encode the stream and the sequence, and parse back", () => {
    expect(formatEventId(3, 17)).toBe("3.17");
    expect(parseEventId("3.17")).toEqual({ stream: 3, seq: 17 });
    for (const bad of ["", "3", "3.", ".1", "a.1", "1.2.3", "-1.2", "1.2 ", "9".repeat(16) + ".1"]) expect(parseEventId(bad)).toBeNull();
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
