import { describe, expect, test } from "bun:test";
import { createParser } from "eventsource-parser";
import { createSseParser, type SseEvent } from "./sse-parse.ts";

type Entry = ["event", SseEvent] | ["id", string] | ["retry", number] | ["comment", string];

/** Run our parser over chunks, recording every callback in order. */
function ours(chunks: string[]): Entry[] {
  const log: Entry[] = [];
  const p = createSseParser({
    onEvent: (e) => log.push(["event", { data: e.data, event: e.event, id: e.id }]),
    onId: (id) => log.push(["id", id]),
    onRetry: (ms) => log.push(["retry", ms]),
    onComment: (c) => log.push(["comment", c]),
  });
  for (const c of chunks) p.feed(c);
  return log;
}

/** The oracle: eventsource-parser over the same chunks. */
function oracle(chunks: string[]): Entry[] {
  const log: Entry[] = [];
  const p = createParser({
    onEvent: (e) => log.push(["event", { data: e.data, event: e.event, id: e.id }]),
    onId: (id) => log.push(["id", id]),
    onRetry: (ms) => log.push(["retry", ms]),
    onComment: (c) => log.push(["comment", c]),
  });
  for (const c of chunks) p.feed(c);
  return log;
}

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUE_ALPHABET = ["a", "b", " ", ":", "{", '"', "é", "😀", "0", "9", "\0", "x"];

function randomStream(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const value = () => {
    let s = "";
    const n = Math.floor(rnd() * 8);
    for (let i = 0; i < n; i++) s += pick(VALUE_ALPHABET);
    return s;
  };
  const lineKinds = [
    () => `data:${value()}`,
    () => `data: ${value()}`,
    () => `data:  ${value()}`,
    () => `event: ${pick(["message", "endpoint", "", "ping"])}`,
    () => `id: ${value()}`,
    () => `id:${pick(["1", "abc", "", "x\0y"])}`,
    () => `retry: ${pick(["100", "0", "12a", "", " 5", "3000", "-1", "1.5"])}`,
    () => `retry:${pick(["7", "x"])}`,
    () => `:${value()}`,
    () => `: ${value()}`,
    () => pick(["data", "event", "id", "retry", "foo", "Data: x", "dat", "d"]),
    () => `${pick(["foo", "ev", "DATA", "data "])}: ${value()}`,
    () => "",
    () => "",
  ];
  const ends = ["\n", "\r", "\r\n"];
  let out = rnd() < 0.1 ? "\uFEFF" : "";
  const lines = 1 + Math.floor(rnd() * 30);
  for (let i = 0; i < lines; i++) out += pick(lineKinds)() + pick(ends);
  if (rnd() < 0.3) out += `data: ${value()}`; // an incomplete tail that must never be dispatched
  return out;
}

function randomChunks(text: string, rnd: () => number): string[] {
  const chunks: string[] = [];
  let i = 0;
  while (i < text.length) {
    const size = rnd() < 0.1 ? 0 : rnd() < 0.8 ? 1 + Math.floor(rnd() * 4) : Math.floor(rnd() * 40);
    // Never split a UTF-16 surrogate pair: real input is decoded text, so chunks are whole code points.
    let end = Math.min(text.length, i + size);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] ?? "")) end++;
    chunks.push(text.slice(i, end));
    i = end;
  }
  return chunks;
}

describe("createSseParser", () => {
  test("matches eventsource-parser on 5000 random streams split at random boundaries", () => {
    let events = 0;
    for (let seed = 1; seed <= 5000; seed++) {
      const rnd = prng(seed);
      const text = randomStream(rnd);
      const chunks = randomChunks(text, rnd);
      const expected = oracle(chunks);
      const actual = ours(chunks);
      if (!Bun.deepEquals(actual, expected)) {
        // Show the seed and input so the case can be replayed.
        expect({ seed, chunks, actual }).toEqual({ seed, chunks, actual: expected });
      }
      events += expected.filter((e) => e[0] === "event").length;
    }
    // The generator must actually exercise dispatch, not only comments and junk.
    expect(events).toBeGreaterThan(5000);
  });

  test("whole-stream and byte-by-byte feeding give the same events", () => {
    const text = 'id: 1\nevent: message\ndata: {"a":\ndata: 1}\n\n: keep-alive\n\nretry: 250\ndata:x\r\n\r\n';
    const whole = ours([text]);
    expect(ours([...text])).toEqual(whole);
    expect(whole).toEqual([
      ["id", "1"],
      ["event", { data: '{"a":\n1}', event: "message", id: "1" }],
      ["comment", "keep-alive"],
      ["retry", 250],
      ["event", { data: "x", event: undefined, id: undefined }],
    ]);
  });

  test("a CR ending one chunk and the LF starting the next are one line end", () => {
    expect(ours(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toEqual([["event", { data: "a\nb", event: undefined, id: undefined }]]);
    // A bare CR followed by a chunk that is not LF is a line end on its own.
    expect(ours(["data: a\r", "\r"])).toEqual([["event", { data: "a", event: undefined, id: undefined }]]);
    // An empty chunk between the CR and the LF does not break the pair.
    expect(ours(["data: a\r", "", "\n", "\n"])).toEqual([["event", { data: "a", event: undefined, id: undefined }]]);
  });

  test("BOM, NUL ids, non-integer retry, fields without a colon, one stripped space", () => {
    expect(ours(["\uFEFFdata: x\n\n"])).toEqual([["event", { data: "x", event: undefined, id: undefined }]]);
    expect(ours(["", "\uFEFF", "data\n\n"])).toEqual([["event", { data: "", event: undefined, id: undefined }]]);
    expect(ours(["id: a\0b\ndata: x\n\n"])).toEqual([["event", { data: "x", event: undefined, id: undefined }]]);
    expect(ours(["retry: 1.5\nretry: 20x\nretry:30\n"])).toEqual([["retry", 30]]);
    expect(ours(["data:  two spaces\n\n"])).toEqual([["event", { data: " two spaces", event: undefined, id: undefined }]]);
    // An id-only block moves the cursor but dispatches no event.
    expect(ours(["id: 7\n\n"])).toEqual([["id", "7"]]);
  });

  test("an oversized event is dropped and reported; its id still counts; the stream goes on", () => {
    const seen: SseEvent[] = [];
    const ids: string[] = [];
    let overflows = 0;
    const p = createSseParser(
      { onEvent: (e) => seen.push(e), onId: (id) => ids.push(id), onOverflow: () => overflows++ },
      { maxEventChars: 16 },
    );
    p.feed("id: 1\ndata: 0123456789\ndata: 0123456789\n\n"); // two lines, joined too big
    p.feed("id: 2\ndata: ");
    for (let i = 0; i < 10; i++) p.feed("xxxxxxxxxx"); // one line, too big before it ends
    p.feed("\n\nid: 3\ndata: ok\n\n");
    expect(seen).toEqual([{ data: "ok", event: undefined, id: "3" }]);
    expect(ids).toEqual(["1", "2", "3"]);
    expect(overflows).toBe(2);
  });
});
