import { describe, expect, test } from "bun:test";
import { readSse, type SseEvent, SseOverflowError } from "./sse.ts";

/** A body delivering `pieces` as separate chunks. */
const body = (pieces: string[]) => {
  const enc = new TextEncoder();
  const queue = pieces.map((p) => enc.encode(p));
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const next = queue.shift();
      if (next) c.enqueue(next);
      else c.close();
    },
  });
};
async function read(pieces: string[], onChunk?: () => void) {
  const out: SseEvent[] = [];
  for await (const e of readSse(body(pieces), onChunk)) out.push(e);
  return out;
}

describe("readSse", () => {
  test("LF, CRLF and CR line ends, event names, ids", async () => {
    expect(await read(["event: a\ndata: 1\n\n", "id: 7\r\ndata: 2\r\n\r\n", "data: 3\r\r"])).toEqual([
      { event: "a", data: "1", id: undefined },
      { event: undefined, data: "2", id: "7" },
      { event: undefined, data: "3", id: undefined },
    ]);
  });
  test("a CRLF split between chunks is one line end, not two", async () => {
    expect(await read(["data: x\r", "\ndata: y\r", "\n\r", "\n"])).toEqual([{ event: undefined, data: "x\ny", id: undefined }]);
  });
  test("lines split anywhere, multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode('data: {"t":"€ 🚀"}\n\n');
    const pieces = Array.from(bytes, (b) => b);
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const b = pieces.shift();
        if (b === undefined) c.close();
        else c.enqueue(new Uint8Array([b]));
      },
    });
    const out: SseEvent[] = [];
    for await (const e of readSse(stream)) out.push(e);
    expect(out).toEqual([{ event: undefined, data: '{"t":"€ 🚀"}', id: undefined }]);
  });
  test("comments and unknown fields are ignored; no space after the colon is fine; data-less events are dropped", async () => {
    expect(await read([": keep-alive\n\nretry: 10\nfoo: bar\ndata:tight\n\nevent: ping\n\n"])).toEqual([
      { event: undefined, data: "tight", id: undefined },
    ]);
  });
  test("an event cut off without its blank line is still delivered at the end", async () => {
    expect(await read(["data: a\n\ndata: last"])).toEqual([
      { event: undefined, data: "a", id: undefined },
      { event: undefined, data: "last", id: undefined },
    ]);
  });
  test("an oversized event is a broken stream, not silently dropped", async () => {
    const huge = `data: ${"x".repeat(8 * 1024 * 1024 + 10)}\n\n`;
    const err = await read([huge]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SseOverflowError);
  });
  test("onChunk runs per chunk; stopping early cancels the body", async () => {
    let chunks = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode("data: x\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _ of readSse(stream, () => chunks++)) break;
    expect(chunks).toBe(1);
    expect(cancelled).toBe(true);
  });
});
