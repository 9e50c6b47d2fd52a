import { describe, expect, test } from "bun:test";
import { readBoundedBody } from "./body.ts";

const URL_ = "http://127.0.0.1/mcp";
const utf8 = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s);

/** A POST whose body is `bytes`, declaring its length (as every HTTP/1.1 client with a whole body does). */
function declared(bytes: Uint8Array<ArrayBuffer>, length = bytes.byteLength): Request {
  return new Request(URL_, { method: "POST", body: bytes, headers: { "content-length": String(length) } });
}

/** A POST whose body streams in `chunks` and then, unless `stall`, ends; no declared length (chunked). */
function streamed(chunks: Uint8Array[], stall = false): Request {
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks.shift();
      if (next) c.enqueue(next);
      else if (!stall) c.close();
    },
  });
  return new Request(URL_, { method: "POST", body });
}

describe("readBoundedBody", () => {
  test("a body of a declared length is read whole by the runtime, never through a stream reader", async () => {
    const req = declared(utf8('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
    // Making the stream object (and reading it chunk by chunk) costs a small request more than the rest of
    // its path in Bun: the declared-length path must not touch it.
    Object.defineProperty(req, "body", {
      get() {
        throw new Error("req.body was read");
      },
    });
    expect(await readBoundedBody(req, 1024)).toEqual({ ok: true, text: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  });

  test("declared: over the limit is 413 before anything is read, a bad length 400, invalid UTF-8 400", async () => {
    expect(await readBoundedBody(declared(utf8("x".repeat(2000))), 1024)).toEqual({ ok: false, status: 413 });
    const bad = new Request(URL_, { method: "POST", body: "{}", headers: { "content-length": "-1" } });
    expect(await readBoundedBody(bad, 1024)).toEqual({ ok: false, status: 400 });
    expect(await readBoundedBody(declared(new Uint8Array([0x7b, 0xff, 0x7d])), 1024)).toEqual({ ok: false, status: 400 });
    expect(await readBoundedBody(declared(new Uint8Array(0)), 1024)).toEqual({ ok: true, text: "" });
  });

  test("declared: a body that does not arrive within the deadline is 408", async () => {
    // The length is declared but the bytes stop coming (a slow-body client).
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(utf8("{"));
      },
    });
    const req = new Request(URL_, { method: "POST", body, headers: { "content-length": "100" } });
    expect(await readBoundedBody(req, 1024, 200)).toEqual({ ok: false, status: 408 });
  });

  test("chunked: counted as it streams, 413 past the limit, 408 at the deadline, the text when whole", async () => {
    expect(await readBoundedBody(streamed([utf8("x".repeat(600)), utf8("x".repeat(600))]), 1024)).toEqual({ ok: false, status: 413 });
    expect(await readBoundedBody(streamed([utf8("{")], true), 1024, 200)).toEqual({ ok: false, status: 408 });
    expect(await readBoundedBody(streamed([utf8('{"a":'), utf8("1}")]), 1024)).toEqual({ ok: true, text: '{"a":1}' });
  });
});
