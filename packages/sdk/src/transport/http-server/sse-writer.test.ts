import { describe, expect, test } from "bun:test";
import { encodeSseEvent } from "../../wire/sse-encode.ts";
import { SseWriter } from "./sse-writer.ts";

/** The body a writer produces for what `write` writes, once ended. */
function bodyOf(write: (w: SseWriter) => void): string {
  const w = new SseWriter(1 << 20);
  write(w);
  w.end();
  return w.takeBody() as string;
}

describe("SseWriter.numbered", () => {
  test("writes exactly what the general encoder writes for the id <stream>.<seq>", () => {
    const cases: [number, number, string, number | undefined][] = [
      [0, 0, "", 1000],
      [3, 1, '{"jsonrpc":"2.0","id":1,"result":{}}', undefined],
      [12, 7, "two\nlines\r\nand\rmore", undefined],
      [1, 2, "with retry", 0],
    ];
    for (const [stream, seq, data, retry] of cases) {
      const general = encodeSseEvent({ id: `${stream}.${seq}`, data, ...(retry === undefined ? {} : { retry }) });
      expect(bodyOf((w) => w.numbered(stream, seq, data, retry))).toBe(general);
      expect(bodyOf((w) => w.numbered(stream, seq, data, retry))).toBe(bodyOf((w) => w.event(`${stream}.${seq}`, data, retry)));
    }
  });

  test("refuses a retry the general encoder refuses, and marks a sole event as one", () => {
    expect(() => bodyOf((w) => w.numbered(1, 0, "", -1))).toThrow(TypeError);
    const w = new SseWriter(1 << 20);
    w.numbered(4, 1, '{"a":1}');
    expect(w.soleData).toBe('{"a":1}');
    w.numbered(4, 2, '{"b":2}');
    expect(w.soleData).toBeUndefined();
  });
});

describe("SseWriter.numberedJson", () => {
  test("writes what the general encoder writes for serialised JSON, line breaks and separators in its strings too", () => {
    const values: unknown[] = [
      { jsonrpc: "2.0", id: 1, result: {} },
      { text: "two\nlines\r\nand\rmore" },
      { text: "separators\u2028\u2029, a nul \u0000 and a tab \t" },
      ["a", 1, null, true],
      "just a string\n",
    ];
    for (const [i, value] of values.entries()) {
      const json = JSON.stringify(value);
      expect(bodyOf((w) => w.numberedJson(i, i + 1, json))).toBe(encodeSseEvent({ id: `${i}.${i + 1}`, data: json }));
    }
  });

  test("marks a sole event as one, as numbered does", () => {
    const w = new SseWriter(1 << 20);
    w.numberedJson(4, 1, '{"a":1}');
    expect(w.soleData).toBe('{"a":1}');
    w.numberedJson(4, 2, '{"b":2}');
    expect(w.soleData).toBeUndefined();
  });
});
