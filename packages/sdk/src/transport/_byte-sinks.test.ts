import { describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { openSink } from "./_byte-sinks.ts";

/** A real Node `Writable` that records each chunk it is handed; `hold` keeps the callbacks until released. */
function recorder(hold = false) {
  const chunks: string[] = [];
  const held: Array<() => void> = [];
  const w = new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      if (hold) held.push(() => callback());
      else callback();
    },
  });
  return { w, chunks, release: () => held.splice(0).forEach((f) => f()) };
}

const turn = () => new Promise<void>((r) => setImmediate(r));

describe("openSink: lines written in one turn go out as one write", () => {
  test("three lines in one turn are one write, in order, multi-byte characters intact", async () => {
    const { w, chunks } = recorder();
    const sink = openSink(w, { error: () => {}, flushed: () => {} });
    sink.write('{"a":"héllo 😀"}\n');
    sink.write('{"b":"你好"}\n');
    sink.write('{"c":3}\n');
    expect(chunks).toEqual([]);
    await turn();
    expect(chunks).toEqual(['{"a":"héllo 😀"}\n{"b":"你好"}\n{"c":3}\n']);
  });

  test("a line alone is written as it is; lines of later turns are later writes", async () => {
    const { w, chunks } = recorder();
    const sink = openSink(w, { error: () => {}, flushed: () => {} });
    sink.write("1\n");
    await turn();
    sink.write("2\n");
    sink.write("3\n");
    await turn();
    sink.write("4\n");
    await turn();
    expect(chunks).toEqual(["1\n", "2\n3\n", "4\n"]);
  });

  test("past 64 Ki characters in one turn the lines are written at once, none lost or reordered", async () => {
    const { w, chunks } = recorder();
    const sink = openSink(w, { error: () => {}, flushed: () => {} });
    const line = (i: number) => `${String(i).padStart(5, "0")}${"x".repeat(16 * 1024 - 6)}\n`;
    for (let i = 0; i < 5; i++) sink.write(line(i));
    // The fourth line took the turn's text to 64 Ki characters: written then, in the same turn.
    expect(chunks).toEqual([line(0) + line(1) + line(2) + line(3)]);
    await turn();
    expect(chunks.join("")).toBe([0, 1, 2, 3, 4].map(line).join(""));
    expect(chunks).toHaveLength(2);
  });

  test("owed lines count until the OS has taken them, requests never; end() flushes first", async () => {
    const { w, chunks, release } = recorder(true);
    let flushed = 0;
    const sink = openSink(w, { error: () => {}, flushed: () => flushed++ });
    sink.write("owed-1\n", true);
    sink.write("request\n");
    sink.write("owed-2\n", true);
    expect(sink.owedChars).toBe("owed-1\n".length + "owed-2\n".length);
    await turn();
    expect(chunks).toEqual(["owed-1\nrequest\nowed-2\n"]);
    expect(sink.owedChars).toBe(14);
    release();
    expect(sink.owedChars).toBe(0);
    expect(flushed).toBe(1);
    sink.write("last\n", true);
    sink.end();
    expect(chunks).toEqual(["owed-1\nrequest\nowed-2\n", "last\n"]);
  });
});
