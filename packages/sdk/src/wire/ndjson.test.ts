import { describe, expect, test } from "bun:test";
import { McpError } from "./errors.ts";
import { encodeNdjson, LineSplitter, NdjsonDecoder } from "./ndjson.ts";

const utf8 = new TextEncoder();

/** Decode `chunks` and collect what came out, in order. */
function decode(chunks: Uint8Array[], maxFrameBytes?: number) {
  const out: Array<{ value: unknown } | { error: McpError }> = [];
  const decoder = new NdjsonDecoder({
    maxFrameBytes,
    onmessage: (value) => out.push({ value }),
    onerror: (error) => out.push({ error }),
  });
  for (const c of chunks) decoder.push(c);
  decoder.end();
  return out;
}

const values = (out: ReturnType<typeof decode>) => out.map((o) => ("value" in o ? o.value : o.error.code));

const MESSAGES = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "héllo 😀 你好世界" } } },
  { jsonrpc: "2.0", method: "notifications/message", params: { data: '🇩🇪 𝄞 \u2028 \n\r\t "quoted"' } },
  { jsonrpc: "2.0", id: "x", result: { content: [{ type: "text", text: "日本語テキスト — ✓" }] } },
];

describe("NdjsonDecoder", () => {
  test("every split point of a multi-message buffer with emoji and CJK", () => {
    const bytes = utf8.encode(MESSAGES.map(encodeNdjson).join(""));
    for (let i = 0; i <= bytes.length; i++) {
      const out = decode([bytes.slice(0, i), bytes.slice(i)]);
      expect(values(out)).toEqual(MESSAGES);
    }
  });

  test("every pair of split points (three chunks) and byte-at-a-time", () => {
    const bytes = utf8.encode(MESSAGES.slice(0, 2).map(encodeNdjson).join(""));
    for (let i = 0; i <= bytes.length; i += 3) {
      for (let j = i; j <= bytes.length; j += 5) {
        const out = decode([bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)]);
        expect(values(out)).toEqual(MESSAGES.slice(0, 2));
      }
    }
    const single = [...bytes].map((b) => Uint8Array.of(b));
    expect(values(decode(single))).toEqual(MESSAGES.slice(0, 2));
  });

  test("chunks that end with their newline, as views into one buffer: every line, and nothing past the view", () => {
    const text = `${encodeNdjson(MESSAGES[0])}${encodeNdjson(MESSAGES[1])}{"c":"😀"}\r\n${encodeNdjson(MESSAGES[2])}`;
    const bytes = utf8.encode(text);
    // Cut after each newline, and once inside the emoji (its line then ends with the next chunk's newline).
    const cuts = [0];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) cuts.push(i + 1);
    const emoji = bytes.indexOf(0xf0, utf8.encode(encodeNdjson(MESSAGES[0]) + encodeNdjson(MESSAGES[1])).length);
    cuts.push(emoji + 2);
    cuts.sort((a, b) => a - b);
    const views = cuts.slice(1).map((end, i) => bytes.subarray(cuts[i], end));
    expect(views.filter((v) => v.at(-1) === 10).length).toBe(4);
    expect(values(decode(views))).toEqual([MESSAGES[0], MESSAGES[1], { c: "😀" }, MESSAGES[2]]);
    // A view ending with its newline inside a buffer that goes on: what follows the view is not read.
    const half = bytes.subarray(0, cuts[1]);
    expect(values(decode([half]))).toEqual([MESSAGES[0]]);
  });

  test("ten messages in one chunk", () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    expect(values(decode([utf8.encode(ten.map(encodeNdjson).join(""))]))).toEqual(ten);
  });

  test("CRLF terminators, blank and whitespace-only lines", () => {
    const text = '{"a":1}\r\n\r\n\n   \n{"b":2}\r\n\t\r\n{"c":3}\n';
    expect(values(decode([utf8.encode(text)]))).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
    // CR and LF in different chunks.
    expect(values(decode([utf8.encode('{"a":1}\r'), utf8.encode('\n{"b":2}\r'), utf8.encode("\n")]))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  test("invalid JSON is a -32700 frame error and the stream continues", () => {
    const out = decode([utf8.encode('{"a":1}\n{not json}\n{"secret":"tok\n{"b":2}\n')]);
    expect(values(out)).toEqual([{ a: 1 }, -32700, -32700, { b: 2 }]);
    const err = (out[1] as { error: McpError }).error;
    expect(McpError.isInstance(err)).toBe(true);
    expect(err.message).toContain("not valid JSON");
    // The frame's content is never echoed back (it may hold a secret).
    expect((out[2] as { error: McpError }).error.message).not.toContain("tok");
  });

  test("a bad line alone in its chunk (the whole-text path): its size without the terminator; the depth bound on the line", () => {
    const sizes = (chunks: string[], maxDepth?: number) => {
      const out: string[] = [];
      const d = new NdjsonDecoder({
        maxDepth,
        onmessage: (v) => out.push(JSON.stringify(v)),
        onerror: (e) => out.push(`${e.code} ${e.message}`),
      });
      for (const c of chunks) d.push(utf8.encode(c));
      return out;
    };
    expect(sizes(["{nope}\n", "{nope}\r\n", "[1] x\n"])).toEqual([
      "-32700 Parse error: frame of 6 bytes is not valid JSON",
      "-32700 Parse error: frame of 6 bytes is not valid JSON",
      "-32700 Parse error: frame of 5 bytes is not valid JSON",
    ]);
    // Five characters cannot nest three levels in valid JSON: not scanned, refused by the parser. Six can be.
    expect(sizes(["[[[[[\n", "[[[[[\r\n", "[[[[[[\n"], 2)).toEqual([
      "-32700 Parse error: frame of 5 bytes is not valid JSON",
      "-32700 Parse error: frame of 5 bytes is not valid JSON",
      "-32600 Invalid request: JSON nested more than 2 levels deep is refused",
    ]);
    expect(sizes(['{"a":[1]}\r\n', "  \n", '"x"\n'], 2)).toEqual(['{"a":[1]}', '"x"']);
  });

  test("invalid UTF-8 is a -32700 frame error", () => {
    const bad = Uint8Array.of(0x22, 0xff, 0xfe, 0x22, 0x0a);
    const out = decode([bad, utf8.encode('"ok"\n')]);
    expect(values(out)).toEqual([-32700, "ok"]);
    expect((out[0] as { error: McpError }).error.message).toContain("UTF-8");
    // Inside a chunk of several lines, only the bad line is lost.
    const mixed = Uint8Array.of(...utf8.encode("[1]\n"), 0x22, 0xc3, 0x28, 0x22, 0x0a, ...utf8.encode("[2]\n"));
    expect(values(decode([mixed]))).toEqual([[1], -32700, [2]]);
  });

  test("a final line without a newline is delivered at end()", () => {
    expect(values(decode([utf8.encode('{"a":1}\n{"b":2}')]))).toEqual([{ a: 1 }, { b: 2 }]);
    expect(values(decode([utf8.encode('{"a":1}\n{"b":')]))).toEqual([{ a: 1 }, -32700]);
  });

  test("a 5 MiB line followed by a valid one: one -32600 error, then the message", () => {
    const big = utf8.encode(`${JSON.stringify({ data: "x".repeat(5 * 1024 * 1024) })}\n${encodeNdjson(MESSAGES[0])}`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < big.length; i += 65536) chunks.push(big.subarray(i, i + 65536));
    const out = decode(chunks);
    expect(values(out)).toEqual([-32600, MESSAGES[0]]);
    const err = (out[0] as { error: McpError }).error;
    expect(err.message).toContain(`${4 * 1024 * 1024} bytes`);
  });

  test("an oversized line is reported as soon as it passes the limit, with bounded memory", () => {
    const errors: McpError[] = [];
    const seen: unknown[] = [];
    let maxBuffered = 0;
    const decoder = new NdjsonDecoder({ maxFrameBytes: 1000, onmessage: (v) => seen.push(v), onerror: (e) => errors.push(e) });
    const piece = utf8.encode("y".repeat(100));
    decoder.push(utf8.encode('"'));
    for (let i = 0; i < 1000; i++) {
      decoder.push(piece);
      maxBuffered = Math.max(maxBuffered, decoder.bufferedBytes);
    }
    // Reported before any newline arrived; nothing beyond the limit was kept.
    expect(errors.map((e) => e.code)).toEqual([-32600]);
    expect(maxBuffered).toBeLessThanOrEqual(1001);
    expect(decoder.bufferedBytes).toBe(0);
    decoder.push(utf8.encode('yyy"\n[1]\n'));
    expect(errors).toHaveLength(1);
    expect(seen).toEqual([[1]]);
  });

  test("the limit is exact: max bytes pass, max+1 do not, a CRLF split at the limit passes", () => {
    const line = (n: number) => `"${"z".repeat(n - 2)}"`;
    expect(values(decode([utf8.encode(`${line(64)}\n`)], 64))).toEqual(["z".repeat(62)]);
    expect(values(decode([utf8.encode(`${line(65)}\n[2]\n`)], 64))).toEqual([-32600, [2]]);
    expect(values(decode([utf8.encode(`${line(64)}\r`), utf8.encode("\n")], 64))).toEqual(["z".repeat(62)]);
    // 65 bytes across two chunks: still too long; 64 across two chunks: fine.
    expect(values(decode([utf8.encode(`"${"z".repeat(40)}`), utf8.encode(`${"z".repeat(23)}"\n`)], 64))).toEqual([-32600]);
    expect(values(decode([utf8.encode(`"${"z".repeat(40)}`), utf8.encode(`${"z".repeat(22)}"\n`)], 64))).toEqual(["z".repeat(62)]);
  });
});

describe("NdjsonDecoder: an over-long response names the request it answers", () => {
  /** Decode with a 64-byte limit; the errors, each with the id it answers, and the values. */
  function oversized(chunks: string[]) {
    const errors: Array<[number, unknown]> = [];
    const seen: unknown[] = [];
    const d = new NdjsonDecoder({ maxFrameBytes: 64, onmessage: (v) => seen.push(v), onerror: (e, to) => errors.push([e.code, to]) });
    for (const c of chunks) d.push(utf8.encode(c));
    d.end();
    return { errors, seen };
  }
  const pad = "x".repeat(200);

  test("id last (the TypeScript SDK's order), at every split point: reported once the frame ends, with its id", () => {
    const text = `{"result":{"content":[{"type":"text","text":"${pad}"}]},"jsonrpc":"2.0","id":7}\n[1]\n`;
    for (let cut = 1; cut < text.length; cut++) {
      expect(oversized([text.slice(0, cut), text.slice(cut)])).toEqual({ errors: [[-32600, 7]], seen: [[1]] });
    }
  });

  test("id first (Python's order), a string id, CRLF: reported at once, with its id", () => {
    expect(oversized([`{"jsonrpc":"2.0","id":"a-1","result":{"t":"${pad}"}}\r\n`])).toEqual({ errors: [[-32600, "a-1"]], seen: [] });
    expect(oversized([`{"jsonrpc":"2.0","error":{"code":-1,"message":"${pad}"},"id":-3}\r\n`])).toEqual({
      errors: [[-32600, -3]],
      seen: [],
    });
  });

  test("not a response, or no top-level id to be sure of: reported without one", () => {
    expect(oversized([`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"t":"${pad}"}}\n`]).errors).toEqual([[-32600, undefined]]);
    expect(oversized([`{"method":"x","params":{"t":"${pad}"},"jsonrpc":"2.0","id":5}\n`]).errors).toEqual([[-32600, undefined]]);
    // The last "id" belongs to a nested object: the frame's own id is unknown.
    expect(oversized([`{"result":{"t":"${pad}","meta":{"id":9}}}\n`]).errors).toEqual([[-32600, undefined]]);
    expect(oversized([`"${pad}"\n`]).errors).toEqual([[-32600, undefined]]);
  });

  test("a response cut off by the end of the stream is still reported", () => {
    expect(oversized([`{"result":{"t":"${pad}`]).errors).toEqual([[-32600, undefined]]);
  });
});

describe("LineSplitter", () => {
  test("truncate mode cuts a long line and resumes at the next one", () => {
    const lines: Array<[string, boolean]> = [];
    const s = new LineSplitter({
      maxLineBytes: 8,
      overflow: "truncate",
      online: (l, t) => lines.push([new TextDecoder().decode(l), t]),
    });
    s.push(utf8.encode("short\r\n0123456"));
    s.push(utf8.encode("789abcdef"));
    s.push(utf8.encode("ghij\nlast"));
    s.end();
    expect(lines).toEqual([
      ["short", false],
      ["01234567", true],
      ["last", false],
    ]);
  });
});

describe("encodeNdjson", () => {
  test("one line per message, no raw newline inside, round-trips", () => {
    for (const m of MESSAGES) {
      const line = encodeNdjson(m);
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1).includes("\n")).toBe(false);
      expect(JSON.parse(line)).toEqual(m);
    }
  });

  test("rejects values JSON cannot carry", () => {
    expect(() => encodeNdjson(undefined)).toThrow(TypeError);
    expect(() => encodeNdjson({ n: 1n })).toThrow();
  });
});
