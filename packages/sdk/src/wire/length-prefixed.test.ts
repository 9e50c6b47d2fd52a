import { afterEach, describe, expect, test } from "bun:test";
import { AgentdError, McpError } from "./errors.ts";
import { ErrorCode } from "./jsonrpc.ts";
import { encodeLengthPrefixed, LENGTH_HEADER_BYTES, LengthPrefixedDecoder, type LengthPrefixedDecoderOptions } from "./length-prefixed.ts";

/** A small deterministic PRNG (mulberry32), so a failing split is reproducible from its seed. */
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

const concat = (frames: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
};

/** Split `bytes` at random points (chunks of 0..maxChunk bytes, empty chunks included). */
function randomChunks(bytes: Uint8Array, random: () => number, maxChunk: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    const n = Math.floor(random() * (maxChunk + 1));
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  return chunks;
}

function collect(options: Partial<LengthPrefixedDecoderOptions> = {}) {
  const messages: unknown[] = [];
  const errors: (McpError | AgentdError)[] = [];
  const decoder = new LengthPrefixedDecoder({
    ...options,
    onmessage: (m) => messages.push(m),
    onerror: (e) => errors.push(e),
  });
  return { decoder, messages, errors };
}

const MESSAGES: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "subagent/spawn", params: { instruction: "héllo ✓ 🎉 — ünïcödé", seed: 42 } },
  { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1 } },
  { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "x".repeat(300) }] } },
  [],
  "a bare string",
  { jsonrpc: "2.0", id: "e", error: { code: -32601, message: "Method not found" } },
];

describe("encodeLengthPrefixed", () => {
  test("writes a 4-byte big-endian length of the UTF-8 body, then the body", () => {
    const frame = encodeLengthPrefixed({ s: "é🎉" });
    const body = new TextEncoder().encode(JSON.stringify({ s: "é🎉" }));
    expect(new DataView(frame.buffer).getUint32(0, false)).toBe(body.length);
    expect(frame.length).toBe(LENGTH_HEADER_BYTES + body.length);
    expect(frame.subarray(LENGTH_HEADER_BYTES)).toEqual(body);
  });

  test("refuses a body over the limit with E_FRAME_TOO_LARGE, and non-JSON values with a TypeError", () => {
    let caught: unknown;
    try {
      encodeLengthPrefixed({ big: "x".repeat(100) }, 50);
    } catch (e) {
      caught = e;
    }
    expect(AgentdError.isInstance(caught) && caught.code).toBe("E_FRAME_TOO_LARGE");
    expect(() => encodeLengthPrefixed(undefined)).toThrow(TypeError);
  });
});

describe("LengthPrefixedDecoder", () => {
  const stream = concat(MESSAGES.map((m) => encodeLengthPrefixed(m)));

  test("decodes one chunk holding many frames, and the same stream byte by byte", () => {
    const whole = collect();
    whole.decoder.push(stream);
    expect(whole.messages).toEqual(MESSAGES);
    const bytewise = collect();
    for (let i = 0; i < stream.length; i++) bytewise.decoder.push(stream.subarray(i, i + 1));
    expect(bytewise.messages).toEqual(MESSAGES);
    expect(bytewise.errors).toEqual([]);
  });

  test("decodes identically for 500 random chunkings (headers and UTF-8 split anywhere)", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const random = prng(seed);
      const { decoder, messages, errors } = collect();
      for (const chunk of randomChunks(stream, random, 1 + (seed % 40))) decoder.push(chunk);
      decoder.end();
      if (errors.length > 0 || messages.length !== MESSAGES.length) throw new Error(`seed ${seed} failed`);
      expect(messages).toEqual(MESSAGES);
    }
  });

  test("skips an over-limit frame exactly, reports it once, and never buffers it", () => {
    const max = 64;
    const big = encodeLengthPrefixed({ blob: "y".repeat(5000) });
    const frames = concat([encodeLengthPrefixed({ n: 1 }), big, encodeLengthPrefixed({ n: 2 })]);
    for (let seed = 1; seed <= 50; seed++) {
      const { decoder, messages, errors } = collect({ maxFrameBytes: max });
      for (const chunk of randomChunks(frames, prng(seed), 97)) {
        decoder.push(chunk);
        expect(decoder.bufferedBytes).toBeLessThanOrEqual(LENGTH_HEADER_BYTES + max);
      }
      expect(messages).toEqual([{ n: 1 }, { n: 2 }]);
      expect(errors).toHaveLength(1);
      const e = errors[0];
      expect(AgentdError.isInstance(e) && e.code).toBe("E_FRAME_TOO_LARGE");
      expect(e?.message).toContain(`exceeds the ${max}-byte limit`);
    }
  });

  test('with oversize: "close", an over-limit frame stops decoding for good', () => {
    const { decoder, messages, errors } = collect({ maxFrameBytes: 16, oversize: "close" });
    decoder.push(concat([encodeLengthPrefixed({ a: 1 }), encodeLengthPrefixed({ b: "z".repeat(50) })]));
    decoder.push(encodeLengthPrefixed({ c: 3 }));
    decoder.end();
    expect(messages).toEqual([{ a: 1 }]);
    expect(decoder.closed).toBe(true);
    expect(errors.map((e) => (AgentdError.isInstance(e) ? e.code : e.code))).toEqual(["E_FRAME_TOO_LARGE"]);
  });

  test("a frame of bad JSON, bad UTF-8 or no bytes is a -32700, and the next frame still decodes", () => {
    const frame = (body: Uint8Array) => {
      const f = new Uint8Array(4 + body.length);
      new DataView(f.buffer).setUint32(0, body.length);
      f.set(body, 4);
      return f;
    };
    const { decoder, messages, errors } = collect();
    decoder.push(
      concat([
        frame(new TextEncoder().encode("{not json")),
        frame(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])),
        frame(new Uint8Array(0)),
        encodeLengthPrefixed({ ok: true }),
      ]),
    );
    expect(messages).toEqual([{ ok: true }]);
    expect(errors.map((e) => McpError.isInstance(e) && e.code)).toEqual([ErrorCode.ParseError, ErrorCode.ParseError, ErrorCode.ParseError]);
    expect(errors[0]?.message).not.toContain("not json"); // never echo frame contents
  });

  test("end() reports a stream cut inside a header or a body, and is silent on a clean end", () => {
    const frame = encodeLengthPrefixed({ cut: true });
    for (const [cut, where] of [
      [2, "inside a length header"],
      [7, "inside a frame"],
    ] as const) {
      const { decoder, errors } = collect();
      decoder.push(frame.subarray(0, cut));
      decoder.end();
      expect(errors).toHaveLength(1);
      expect(AgentdError.isInstance(errors[0]) && errors[0].code).toBe("E_TRANSPORT");
      expect(errors[0]?.message).toContain(where);
    }
    const clean = collect();
    clean.decoder.push(frame);
    clean.decoder.end();
    expect(clean.errors).toEqual([]);
    expect(clean.messages).toEqual([{ cut: true }]);
  });
});

describe("LengthPrefixedDecoder over a real pipe", () => {
  let child: ReturnType<typeof Bun.spawn> | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) process.kill(child.pid, "SIGKILL");
    child = undefined;
  });

  test("decodes 300 frames written by a child process, however the pipe chunks them", async () => {
    const script = `
      const enc = new TextEncoder();
      for (let i = 0; i < 300; i++) {
        const body = enc.encode(JSON.stringify({ jsonrpc: "2.0", method: "tick", params: { i, pad: "é".repeat(i * 7) } }));
        const frame = new Uint8Array(4 + body.length);
        new DataView(frame.buffer).setUint32(0, body.length);
        frame.set(body, 4);
        await Bun.write(Bun.stdout, frame);
      }`;
    child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const { decoder, messages, errors } = collect();
    for await (const chunk of child.stdout as ReadableStream<Uint8Array>) decoder.push(chunk);
    decoder.end();
    expect(await child.exited).toBe(0);
    expect(errors).toEqual([]);
    expect(messages).toHaveLength(300);
    expect(messages[299]).toEqual({ jsonrpc: "2.0", method: "tick", params: { i: 299, pad: "é".repeat(299 * 7) } });
  });
});
