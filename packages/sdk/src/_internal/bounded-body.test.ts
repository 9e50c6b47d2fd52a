import { afterEach, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { AgentdError } from "../wire/errors.ts";
import { bufferedResponse, readBodyPrefix, readBoundedBytes, readBoundedText, shownUrl } from "./bounded-body.ts";

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => server?.stop(true));

/** Serve `answer` at 127.0.0.1 and fetch it. */
async function answerOf(answer: () => Response): Promise<Response> {
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: answer });
  return fetch(`http://127.0.0.1:${server.port}/p?token=secret`);
}

const bound = (limit: number) => ({ limit, peer: "test peer", url: `http://u:pw@127.0.0.1:1/p?token=secret#f` });

async function refusal(p: Promise<unknown>): Promise<AgentdError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!AgentdError.isInstance(e)) throw new Error(`expected an AgentdError, got ${String(e)}`);
  return e;
}

test("a body within the limit is read whole, by its declared length or chunk by chunk", async () => {
  expect(await readBoundedText(await answerOf(() => new Response("héllo")), bound(6))).toBe("héllo");
  const chunked = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode("ab"));
      c.enqueue(new TextEncoder().encode("cd"));
      c.close();
    },
  });
  expect(await readBoundedText(await answerOf(() => new Response(chunked)), bound(4))).toBe("abcd");
});

test("a declared length over the limit is refused before reading; the error names origin and path, never the query", async () => {
  const e = await refusal(readBoundedBytes(await answerOf(() => new Response("x".repeat(2048))), bound(1024)));
  expect(e.code).toBe("E_UPSTREAM");
  expect(e.message).toBe(
    "test peer http://127.0.0.1:1/p sent a response body over the 1 KiB limit; agentd stopped reading and closed the connection",
  );
  expect(e.options.data).toEqual({ endpoint: "http://127.0.0.1:1/p", limitBytes: 1024 });
});

test("a compressed body is counted as it inflates (a small gzip cannot become gigabytes)", async () => {
  const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024));
  expect(bomb.byteLength).toBeLessThan(64 * 1024);
  const res = await answerOf(() => new Response(bomb, { headers: { "content-encoding": "gzip" } }));
  const e = await refusal(readBoundedBytes(res, { ...bound(1024 * 1024), code: "E_FRAME_TOO_LARGE", hint: "raise x" }));
  expect(e.code).toBe("E_FRAME_TOO_LARGE");
  expect(e.message).toEndWith("closed the connection (raise x)");
});

test("the prefix of an error body: at most the bytes asked for, never a throw", async () => {
  expect(await readBodyPrefix(await answerOf(() => new Response("y".repeat(100_000))), 10)).toBe("y".repeat(10));
  expect(await readBodyPrefix(await answerOf(() => new Response("short")), 10)).toBe("short");
});

test("a buffered copy keeps status and headers, drops the encoding, and reads like the original", async () => {
  const res = await answerOf(() => Response.json({ a: 1 }, { status: 201, headers: { etag: "v1" } }));
  const copy = await bufferedResponse(res, bound(100));
  expect([copy.status, copy.headers.get("etag"), copy.url]).toEqual([201, "v1", res.url]);
  expect(await copy.json()).toEqual({ a: 1 });
  expect(shownUrl("not a url")).toBe("");
});
