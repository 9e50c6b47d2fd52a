/**
 * A request the client cancels (`notifications/cancelled`) gets no response, yet its POST must still end and
 * stop counting against the session's limits; in JSON mode, a client that goes away abandons its exchange.
 * Raw HTTP against the server with the test responder (which never answers `slow` on its own).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger, type LogRecord } from "../../log.ts";
import { callTool, createResponder, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";
import { SseWriter } from "./sse-writer.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<StreamableHttpServerOptions> = {}) {
  const responder = createResponder();
  const logger = memoryLogger("debug");
  const server = await createStreamableHttpServer({ onsession: responder.onsession, logger, ...options });
  servers.push(server);
  return { server, url: server.url, responder, records: logger.records as LogRecord[] };
}

const cancelled = (requestId: string | number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "test" },
});

/** Resolve when `pred()` holds (checked every 20 ms, for state that changes without a callback); fail after `ms`. */
async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!pred()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("cancelled requests (SSE mode)", () => {
  test("the POST stream ends without a response; the request no longer counts as in flight", async () => {
    const { url, responder, records } = await start({ limits: { maxInFlightPerSession: 1 } });
    const s = await openSession(url);
    const stream = new SseReader(await post(url, callTool(1, "slow"), s.headers));
    await responder.heldCount(1);
    expect((await post(url, callTool(2, "echo"), s.headers)).status).toBe(429);

    const c = await post(url, cancelled(1), s.headers);
    expect(c.status).toBe(202);
    // The stream ends; it carried the priming event only.
    expect((await stream.rest()).filter((e) => e.data !== "")).toEqual([]);
    expect(stream.error).toBeUndefined();
    // The protocol layer sees the notification too (it aborts the handler there).
    expect(responder.sessions[0]!.received.some((r) => r.message.method === "notifications/cancelled")).toBe(true);

    const next = new SseReader(await post(url, callTool(3, "echo", "after"), s.headers));
    expect((await next.nextMessage())?.message).toMatchObject({ id: 3, result: { content: [{ text: "after" }] } });

    // A late response to the cancelled request goes nowhere, and is expected: logged at debug, not warn.
    responder.release();
    await until(() => records.some((r) => r.event === "http.drop"), "the late response to be dropped");
    expect(records.filter((r) => r.event === "http.drop").map((r) => r.level)).toEqual(["debug"]);
  });

  test("a cancelled request frees its stream slot: more cancelled calls than maxStreamsPerSession", async () => {
    const { url, server, responder } = await start({ limits: { maxStreamsPerSession: 2 } });
    const s = await openSession(url);
    for (let id = 1; id <= 6; id++) {
      const stream = new SseReader(await post(url, callTool(id, "slow"), s.headers));
      await responder.heldCount(id);
      expect((await post(url, cancelled(id), s.headers)).status).toBe(202);
      await stream.rest();
    }
    await until(() => server.stats().streams === 0, "the server to count no open stream");
    const last = new SseReader(await post(url, callTool(7, "echo", "ok"), s.headers));
    expect((await last.nextMessage())?.message).toMatchObject({ id: 7 });
  });

  test("a batch stream stays open while another request on it is pending, then ends after its response", async () => {
    const { url, responder } = await start();
    const s = await openSession(url, {}, "2025-03-26");
    const stream = new SseReader(await post(url, [callTool(1, "slow"), callTool(2, "slow")], s.headers));
    await responder.heldCount(2);
    expect((await post(url, cancelled(1), s.headers)).status).toBe(202);
    responder.release();
    const events = (await stream.rest()).filter((e) => e.data !== "").map((e) => JSON.parse(e.data));
    expect(events).toEqual([expect.objectContaining({ id: 2, result: expect.anything() })]);
  });

  test('cancelling an unknown id, or the string "1" for request 1, changes nothing', async () => {
    const { url, responder } = await start();
    const s = await openSession(url);
    const stream = new SseReader(await post(url, callTool(1, "slow", "kept"), s.headers));
    await responder.heldCount(1);
    expect((await post(url, cancelled(99), s.headers)).status).toBe(202);
    expect((await post(url, cancelled("1"), s.headers)).status).toBe(202);
    responder.release();
    expect((await stream.nextMessage())?.message).toMatchObject({ id: 1, result: { content: [{ text: "kept" }] } });
  });
});

describe("cancelled requests (JSON mode)", () => {
  test("the exchange completes with an empty event stream, and the idle session is then reaped", async () => {
    const { url, responder } = await start({
      responseMode: "json",
      limits: { maxInFlightPerSession: 1, sessionIdleMs: 200 },
    });
    const s = await openSession(url);
    const pending = post(url, callTool(1, "slow"), s.headers);
    await responder.heldCount(1);
    expect((await post(url, cancelled(1), s.headers)).status).toBe(202);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await res.text()).toBe("");
    // No longer in flight: a new request is answered.
    const next = await post(url, callTool(2, "echo", "after"), s.headers);
    expect(await next.json()).toMatchObject({ id: 2, result: { content: [{ text: "after" }] } });
    // Nothing holds the session busy any more: it expires.
    await responder.sessions[0]!.closed;
  });

  test("a batch with one of two requests cancelled answers the other one only", async () => {
    const { url, responder } = await start({ responseMode: "json" });
    const s = await openSession(url, {}, "2025-03-26");
    const pending = post(url, [callTool(1, "slow"), callTool(2, "slow")], s.headers);
    await responder.heldCount(2);
    expect((await post(url, cancelled(2), s.headers)).status).toBe(202);
    responder.release();
    expect(await (await pending).json()).toEqual([expect.objectContaining({ id: 1, result: expect.anything() })]);
  });

  test("a client that goes away abandons its exchange: its request stops counting, the session is reaped", async () => {
    const { url, responder, records } = await start({
      responseMode: "json",
      limits: { maxInFlightPerSession: 1, sessionIdleMs: 200 },
    });
    const s = await openSession(url);
    const ac = new AbortController();
    const gone = post(url, callTool(1, "slow"), s.headers, { signal: ac.signal }).catch((e: Error) => e.name);
    await responder.heldCount(1);
    ac.abort();
    expect(await gone).toBe("AbortError");
    await until(() => records.some((r) => r.event === "http.exchange.abandoned"), "the server to notice the client left");
    const next = await post(url, callTool(2, "echo", "after"), s.headers);
    expect(await next.json()).toMatchObject({ id: 2 });
    await responder.sessions[0]!.closed;
  });
});

describe("a client gone before its SSE body is taken", () => {
  test("the writer ends at once as disconnected (an aborted signal never fires again)", () => {
    const ac = new AbortController();
    const writer = new SseWriter(1024);
    const reasons: string[] = [];
    writer.onEnd((r) => void reasons.push(r));
    writer.event("0.0", "");
    ac.abort();
    expect(writer.takeBody({ signal: ac.signal })).toBeString();
    expect(reasons).toEqual(["disconnected"]);
    expect(writer.open).toBe(false);
  });
});

describe("a client that drops its GET stream", () => {
  test("the server notices without the request's signal: the stream no longer counts and a new GET is accepted", async () => {
    const { url, server } = await start();
    const s = await openSession(url);
    const headers = { ...s.headers, accept: "text/event-stream" };
    const first = new SseReader(await fetch(url, { headers }));
    expect(await first.next()).toMatchObject({ data: "" });
    expect(server.stats().streams).toBe(1);
    await first.cancel();
    await until(() => server.stats().streams === 0, "the server to notice the dropped stream");
    const again = await fetch(url, { headers });
    expect(again.status).toBe(200);
    const second = new SseReader(again);
    expect(await second.next()).toMatchObject({ data: "" });
    await second.cancel();
  });
});

describe("a writer cut before its response has started", () => {
  test("its body still ends (it does not hang open until an idle timeout)", async () => {
    const writer = new SseWriter(1024);
    writer.event("0.0", "");
    const body = writer.takeBody();
    expect(body).not.toBeString();
    expect(writer.event(undefined, "x".repeat(4096))).toBe(false); // over the limit before the sink pulled
    expect(writer.open).toBe(false);
    expect(await new Response(body).text()).toBe("");
  });
});
