import { describe, expect, test } from "bun:test";
import { AgentdError, memoryLogger } from "@agentd/sdk/model";
import { postJson, postStream } from "./http.ts";
import { type FetchFunction, resolveHttpSettings } from "./settings.ts";

const KEY = "sk-http-SECRET-42";

/** A fetch answering from `replies`, counting calls. */
function fetchOf(replies: Array<(init: RequestInit | undefined) => Promise<Response> | Response>) {
  let calls = 0;
  const fetch: FetchFunction = async (_input, init) => {
    const reply = replies[calls++];
    if (!reply) throw new Error("no reply left");
    return reply(init);
  };
  return { fetch, calls: () => calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const reset = () => Promise.reject(Object.assign(new TypeError("The socket connection was closed unexpectedly"), { code: "ECONNRESET" }));
/** Never answers; rejects like fetch does when its signal aborts. */
const hang = (init: RequestInit | undefined) =>
  new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));

/** An SSE body tied to the request signal (as a real fetch body is), one event every `gapMs`. */
function sseBody(init: RequestInit | undefined, events: number, gapMs: number): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (sent === events) return c.close();
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      if (init?.signal?.aborted) return c.error(init.signal.reason);
      c.enqueue(new TextEncoder().encode(`data: ${sent++}\n\n`));
    },
  });
  init?.signal?.addEventListener("abort", () => body.cancel().catch(() => {}));
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function settings(fetch: FetchFunction, extra: Record<string, unknown> = {}) {
  const logger = memoryLogger();
  const http = resolveHttpSettings("test-provider", {
    model: "m",
    apiKey: KEY,
    fetch,
    retryDelayMs: 100,
    random: () => 0.5,
    logger,
    ...extra,
  });
  return { http, logger };
}
const req = (signal?: AbortSignal) => ({ url: "http://x.test/api", headers: { authorization: `Bearer ${KEY}` }, body: { q: 1 }, signal });
async function failure(p: Promise<unknown>): Promise<AgentdError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!AgentdError.isInstance(e)) throw new Error(`expected AgentdError, got ${String(e)}`);
  return e;
}

describe("postJson retries", () => {
  test("connection reset, then 503, then success; jittered delays logged without the key", async () => {
    const f = fetchOf([reset, () => json(503, { error: { message: "busy" } }), () => json(200, { ok: true })]);
    const { http, logger } = settings(f.fetch);
    expect(await postJson(http, req())).toEqual({ ok: true });
    expect(f.calls()).toBe(3);
    const retries = logger.records.filter((r) => r.event === "model.retry");
    expect(retries.map((r) => [r.retry, r.delayMs, r.status])).toEqual([
      [1, 50, undefined],
      [2, 100, 503],
    ]);
    expect(JSON.stringify(logger.records)).not.toContain(KEY);
  });

  test("a 400 is final at once", async () => {
    const f = fetchOf([() => json(400, { error: { message: "bad field" } })]);
    const e = await failure(postJson(settings(f.fetch).http, req()));
    expect([e.code, e.retryable, e.options.data?.status, f.calls()]).toEqual(["E_UPSTREAM", false, 400, 1]);
    expect(e.message).toBe("test-provider returned HTTP 400: bad field");
  });

  test("x-should-retry overrides the status rule both ways", async () => {
    const f = fetchOf([() => json(500, {}, { "x-should-retry": "false" })]);
    await failure(postJson(settings(f.fetch).http, req()));
    expect(f.calls()).toBe(1);
    const g = fetchOf([() => json(400, {}, { "x-should-retry": "true" }), () => json(200, { ok: 1 })]);
    expect(await postJson(settings(g.fetch).http, req())).toEqual({ ok: 1 });
  });

  test("a Retry-After beyond the cap is not waited out: retryable error carrying the wait", async () => {
    const f = fetchOf([() => json(429, { error: { message: "slow down" } }, { "retry-after": "120" })]);
    const e = await failure(postJson(settings(f.fetch, { maxRetryDelayMs: 5000 }).http, req()));
    expect([e.retryable, e.options.data?.retryAfterMs, f.calls()]).toEqual([true, 120_000, 1]);
    expect(e.message).toContain("retry after 120 s");
  });

  test("a body that is not JSON is a final E_UPSTREAM", async () => {
    const f = fetchOf([() => new Response("<html>oops</html>", { status: 200 })]);
    const e = await failure(postJson(settings(f.fetch).http, req()));
    expect([e.code, e.retryable, f.calls()]).toEqual(["E_UPSTREAM", false, 1]);
    // An HTML page where the API was expected: the URL's path is the likely mistake.
    expect(e.message).toContain("response is not JSON: oops");
    expect(e.message).toContain("check the endpoint URL's path");
  });

  test("a body that is not JSON and not HTML says only what it was", async () => {
    const f = fetchOf([() => new Response("plain words", { status: 200, headers: { "content-type": "text/plain" } })]);
    const e = await failure(postJson(settings(f.fetch).http, req()));
    expect(e.message).toContain("response is not JSON: plain words");
    expect(e.message).not.toContain("URL's path");
  });
});

describe("timeouts and aborts", () => {
  test("an already aborted signal never reaches fetch", async () => {
    const f = fetchOf([]);
    const c = new AbortController();
    c.abort();
    expect((await failure(postJson(settings(f.fetch).http, req(c.signal)))).code).toBe("E_ABORTED");
    expect(f.calls()).toBe(0);
  });

  test("per-request timeout: E_TIMEOUT, not retried", async () => {
    const f = fetchOf([hang, hang]);
    const e = await failure(postJson(settings(f.fetch, { timeoutMs: 50 }).http, req()));
    expect([e.code, e.options.data?.timeoutMs, f.calls()]).toEqual(["E_TIMEOUT", 50, 1]);
  });

  test("a timeout past setTimeout's 2^31-1 ms (30 days, Infinity) does not abort the request after 1 ms", async () => {
    const slow = (init: RequestInit | undefined) =>
      new Promise<Response>((resolve, reject) => {
        const t = setTimeout(() => resolve(json(200, { ok: true })), 30);
        init?.signal?.addEventListener("abort", () => (clearTimeout(t), reject(init.signal?.reason)));
      });
    for (const timeoutMs of [30 * 86_400_000, Infinity]) {
      const f = fetchOf([slow]);
      expect(await postJson(settings(f.fetch, { timeoutMs }).http, req())).toEqual({ ok: true });
      const s = fetchOf([(init) => new Promise<Response>((r) => setTimeout(() => r(sseBody(init, 2, 20)), 20))]);
      const seen: string[] = [];
      for await (const d of postStream(settings(s.fetch, { timeoutMs }).http, req(), async function* (events) {
        for await (const e of events) yield e.data;
      }))
        seen.push(d);
      expect(seen).toEqual(["0", "1"]);
    }
  });

  test("abort during the backoff wait ends it at once", async () => {
    const c = new AbortController();
    const f = fetchOf([
      () => {
        setTimeout(() => c.abort(), 10);
        return json(503, {});
      },
    ]);
    const started = performance.now();
    const e = await failure(postJson(settings(f.fetch, { retryDelayMs: 60_000, random: () => 0.99 }).http, req(c.signal)));
    expect(e.code).toBe("E_ABORTED");
    // The wait drawn was ~59 s; ending in under 30 s proves the abort cut it short.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(f.calls()).toBe(1);
  });

  test("stream timeout is per chunk: a long healthy stream is not cut off", async () => {
    const f = fetchOf([(init) => sseBody(init, 30, 50)]);
    const seen: string[] = [];
    const { http } = settings(f.fetch, { timeoutMs: 1000 });
    for await (const d of postStream(http, req(), async function* (events) {
      for await (const e of events) yield e.data;
    }))
      seen.push(d);
    expect(seen).toHaveLength(30);
  });

  test("a slow consumer is not mistaken for a stalled provider", async () => {
    const f = fetchOf([(init) => sseBody(init, 3, 0)]);
    const { http } = settings(f.fetch, { timeoutMs: 100 });
    const seen: string[] = [];
    for await (const d of postStream(http, req(), async function* (events) {
      for await (const e of events) yield e.data;
    })) {
      seen.push(d);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(seen).toEqual(["0", "1", "2"]);
  });

  test("a stream that stalls after its first part ends with E_TIMEOUT, not a retry", async () => {
    // Two events, then silence with the connection open until the request signal aborts.
    const stalling = (init: RequestInit | undefined) => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent < 2) return c.enqueue(new TextEncoder().encode(`data: ${sent++}\n\n`));
          return new Promise<void>((resolve) =>
            init?.signal?.addEventListener("abort", () => {
              c.error(init.signal?.reason);
              resolve();
            }),
          );
        },
      });
      return new Response(body);
    };
    const f = fetchOf([stalling, hang]);
    let n = 0;
    const { http } = settings(f.fetch, { timeoutMs: 80 });
    const e = await failure(
      (async () => {
        for await (const _ of postStream(http, req(), async function* (events) {
          for await (const ev of events) yield ev.data;
        }))
          n++;
      })(),
    );
    expect([e.code, n, f.calls()]).toEqual(["E_TIMEOUT", 2, 1]);
  });
});
