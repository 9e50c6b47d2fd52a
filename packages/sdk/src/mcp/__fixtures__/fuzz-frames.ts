/**
 * Fuzz frames with their expected answers. Every frame is built from a known-good message of the peer
 * under test and one mutation, so the JSON-RPC reply it deserves follows from how it was built:
 * -32700 invalid JSON or UTF-8, -32600 wrong shape (with the id when one can be read, else null),
 * -32601 unknown method, -32602 bad params, a result for a valid request, nothing for a notification,
 * a response or a blank line. Deterministic: a seeded PRNG (mulberry32).
 */
import type { RequestId } from "../../wire/jsonrpc.ts";

/** What the peer must answer to one frame. */
export type Expected = { reply: "none" } | { reply: "result"; id: RequestId } | { reply: "error"; code: number; id: RequestId | null };

/** One line to write (without its newline) and its expected answer. */
export interface Frame {
  kind: string;
  bytes: Uint8Array;
  expected: Expected;
}

/** A request of the peer's surface and what it answers: a result, or an error code. */
export interface Call {
  method: string;
  params?: unknown;
  outcome: "result" | number;
}

/** The surface of the peer under test, as seen from the frames' sender. */
export interface PeerSurface {
  /** Requests the peer serves with these params. */
  valid: Call[];
  /** Requests the peer refuses on their params (-32602, or another code the handler owns). */
  badParams: Call[];
  /** Methods the peer does not serve (-32601) — or, like `initialize` after the handshake, refuses. */
  refused: Call[];
  /** Notifications the peer accepts (valid or not, they are never answered). */
  notifications: { method: string; params?: unknown }[];
  /** The largest frame the peer accepts, in bytes. */
  maxFrameBytes: number;
  /** The deepest JSON nesting the peer accepts (deeper: -32600 with a null id); none when absent. */
  maxDepth?: number;
}

const encoder = new TextEncoder();

/** A seeded PRNG in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Build `count` frames against `surface`. Request ids never repeat. */
export function buildFrames(surface: PeerSurface, count: number, seed: number): Frame[] {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  let n = 0;
  /** A fresh id as JSON text, in one of the shapes JSON-RPC allows. */
  const freshId = (): { text: string; id: RequestId } => {
    n += 1;
    const text = pick([`"f-${n}"`, `${n + 1_000_000}`, `${-n}`, `${n}.5`, `${n}e200`, `"ü-${n}-💥"`, `"${"i".repeat(int(1, 64))}-${n}"`]);
    return { text, id: JSON.parse(text) as RequestId };
  };
  const body = (parts: Record<string, string | undefined>) =>
    `{${Object.entries(parts)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
      .join(",")}}`;
  const request = (call: Call, id: string, overrides: Record<string, string | undefined> = {}) =>
    body({
      jsonrpc: '"2.0"',
      id,
      method: JSON.stringify(call.method),
      params: call.params === undefined ? undefined : JSON.stringify(call.params),
      ...overrides,
    });
  const text = (kind: string, line: string, expected: Expected): Frame => ({ kind, bytes: encoder.encode(line), expected });
  const answer = (call: Call, id: RequestId): Expected =>
    call.outcome === "result" ? { reply: "result", id } : { reply: "error", code: call.outcome, id };
  const deep = (depth: number, open = "[", close = "]", leaf = "1") => `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;
  // Every prefix keeps the name off any real method.
  const randomMethod = () =>
    pick(["x-", "tools/x-", "notifications/x-", "rpc.x-", "💥/"]) +
    Array.from({ length: int(1, 24) }, () => pick([..."abcdefghijklmnopqrstuvwxyz/_-.0123456789ü"])).join("");

  const kinds: [number, () => Frame][] = [
    [
      15,
      () => {
        const c = pick(surface.valid);
        const { text: t, id } = freshId();
        return text("valid", request(c, t), answer(c, id));
      },
    ],
    [
      10,
      () => {
        const c = pick(surface.badParams);
        const { text: t, id } = freshId();
        return text("bad-params", request(c, t), answer(c, id));
      },
    ],
    [
      6,
      () => {
        const c = pick(surface.refused);
        const { text: t, id } = freshId();
        return text("refused", request(c, t), answer(c, id));
      },
    ],
    [
      5,
      () => {
        const { text: t, id } = freshId();
        return text("unknown-method", request({ method: randomMethod(), params: { a: 1 }, outcome: -32601 }, t), {
          reply: "error",
          code: -32601,
          id,
        });
      },
    ],
    [
      2,
      () => {
        // Duplicate keys: JSON.parse keeps the last one, so the method is the unknown one.
        const { text: t, id } = freshId();
        return text("duplicate-key", `{"jsonrpc":"2.0","id":${t},"method":"ping","method":${JSON.stringify(randomMethod())}}`, {
          reply: "error",
          code: -32601,
          id,
        });
      },
    ],
    [
      10,
      () => {
        const c = pick(surface.valid);
        const { text: t, id } = freshId();
        const wrong = pick<Record<string, string | undefined>>([
          { jsonrpc: pick(['"1.0"', "2", "null", '"2.0 "', undefined]) },
          { method: pick(["5", "null", "{}", "[]", "true"]) },
          { params: pick(["[]", '"x"', "3", "true", "null", "[1,2]"]) },
          { method: undefined },
          { result: "{}" },
          { error: '{"code":1,"message":"m"}' },
        ]);
        return text("wrong-shape", request(c, t, wrong), { reply: "error", code: -32600, id });
      },
    ],
    [
      5,
      () =>
        text("bad-id", request(pick(surface.valid), pick(["null", "true", "{}", "[]", "1e400", "-1e999", '["a"]'])), {
          reply: "error",
          code: -32600,
          id: null,
        }),
    ],
    [
      10,
      () => {
        const n = pick(surface.notifications);
        return text(
          "notification",
          body({
            jsonrpc: '"2.0"',
            method: JSON.stringify(n.method),
            params: n.params === undefined ? undefined : JSON.stringify(n.params),
          }),
          { reply: "none" },
        );
      },
    ],
    [
      2,
      () => {
        // An invalid message is answered even without an id (JSON-RPC 2.0: `{"method": 1, "params": "bar"}` → -32600, id null).
        const n = pick(surface.notifications);
        const wrong = pick<Record<string, string>>([
          { params: pick(["5", '"x"', "[]", "null"]) },
          { method: pick(["1", "null", "[]"]) },
          { jsonrpc: '"1.0"' },
        ]);
        return text("bad-notification", body({ jsonrpc: '"2.0"', method: JSON.stringify(n.method), ...wrong }), {
          reply: "error",
          code: -32600,
          id: null,
        });
      },
    ],
    [
      4,
      () => {
        // Without an id a request is a notification: never answered, whatever its method or params.
        const c = pick([...surface.valid, ...surface.badParams, ...surface.refused]);
        return text("id-removed", request(c, "0", { id: undefined }), { reply: "none" });
      },
    ],
    [
      3,
      () =>
        text(
          "response",
          pick([
            `{"jsonrpc":"2.0","id":"r-${++n}","result":{}}`,
            `{"jsonrpc":"2.0","id":${++n + 5_000_000},"error":{"code":-32000,"message":"x"}}`,
            `{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"y"}}`,
          ]),
          { reply: "none" },
        ),
    ],
    [
      3,
      () =>
        text(
          "bad-response",
          pick([
            `{"jsonrpc":"2.0","id":${++n + 7_000_000},"result":3}`,
            `{"jsonrpc":"2.0","id":"e-${++n}","error":"bad"}`,
            `{"jsonrpc":"2.0","result":{}}`,
            `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"z"}}`,
          ]),
          { reply: "error", code: -32600, id: null },
        ),
    ],
    [
      8,
      () => {
        // A proper prefix of a JSON object text is never JSON.
        const c = pick(surface.valid);
        const full = request(c, freshId().text);
        return text("truncated", full.slice(0, int(1, full.length - 1)), { reply: "error", code: -32700, id: null });
      },
    ],
    [
      4,
      () =>
        text(
          "garbage",
          pick([
            "hello",
            "{'a':1}",
            '{"jsonrpc":"2.0",}',
            "NaN",
            "{]",
            '{"a":1}}',
            "[1,]",
            "\u0000",
            '{"a":undefined}',
            "--",
            '"unterminated',
            "0x10",
          ]),
          { reply: "error", code: -32700, id: null },
        ),
    ],
    [
      5,
      () => {
        const c = pick(surface.valid);
        const [head, tail] = [
          encoder.encode(`{"jsonrpc":"2.0","id":${freshId().text},"method":${JSON.stringify(c.method)},"x":"`),
          encoder.encode('"}'),
        ];
        const bad = pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]);
        return {
          kind: "invalid-utf8",
          bytes: new Uint8Array([...head, ...bad, ...tail]),
          expected: { reply: "error", code: -32700, id: null },
        };
      },
    ],
    [5, () => text("blank", pick(["", " ", "\t", "\r", "   \t  "]), { reply: "none" })],
    [
      3,
      () =>
        text("not-an-object", pick(["42", '"s"', "null", "true", "false", "-0.5", "1e400"]), { reply: "error", code: -32600, id: null }),
    ],
    [
      3,
      () =>
        text(
          "batch",
          pick(["[]", `[${request(pick(surface.valid), freshId().text)}]`, `[${request(pick(surface.valid), freshId().text)},1]`, "[[]]"]),
          { reply: "error", code: -32600, id: null },
        ),
    ],
    [
      3,
      () => {
        const { text: t, id } = freshId();
        // The envelope adds three levels; a peer with a depth limit refuses past it, before reading the id.
        const depth = surface.maxDepth !== undefined && rand() < 0.5 ? int(1, surface.maxDepth - 3) : int(100, 20_000);
        const refused = surface.maxDepth !== undefined && depth + 3 > surface.maxDepth;
        return text(
          "deep-meta",
          `{"jsonrpc":"2.0","id":${t},"method":"ping","params":{"_meta":{"x":${deep(depth)}}}}`,
          refused ? { reply: "error", code: -32600, id: null } : { reply: "result", id },
        );
      },
    ],
    [1, () => text("deep-array", deep(int(1_000, 50_000)), { reply: "error", code: -32600, id: null })],
    [1, () => text("deep-object", deep(int(1_000, 20_000), '{"a":', "}", "1"), { reply: "error", code: -32600, id: null })],
    [
      3,
      () => {
        const { text: t, id } = freshId();
        const big = pick(["1e308", "-1.7976931348623157e308", "9".repeat(300), "1e21", "123456789012345678901234567890"]);
        return text(
          "huge-number",
          `{"jsonrpc":"2.0","id":${t},"method":"ping","params":{"_meta":{"progressToken":${big}}},"extra":1e999}`,
          { reply: "result", id },
        );
      },
    ],
  ];
  const total = kinds.reduce((s, [w]) => s + w, 0);
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) {
    // A few frames past the size limit, spread through the storm.
    if (i % 500 === 250) {
      const pad = "x".repeat(surface.maxFrameBytes + int(1, 4096));
      frames.push(
        text("oversized", `{"jsonrpc":"2.0","id":${freshId().text},"method":"ping","params":{"pad":"${pad}"}}`, {
          reply: "error",
          code: -32600,
          id: null,
        }),
      );
      continue;
    }
    let r = rand() * total;
    const make = kinds.find(([w]) => (r -= w) < 0)?.[1] ?? kinds[0]![1];
    frames.push(make());
  }
  return frames;
}
