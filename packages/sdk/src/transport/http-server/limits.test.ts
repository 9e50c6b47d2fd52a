import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { callTool, createResponder, initializeRequest, openSession, POST_HEADERS, post, SseReader } from "./__fixtures__/http-harness.ts";
import { trickle, type Trickle } from "./__fixtures__/trickle-client.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<StreamableHttpServerOptions> = {}) {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, ...options });
  servers.push(server);
  return { server, url: server.url, responder };
}

const echo = async (url: URL, headers: Record<string, string>, id: number, text: string) =>
  (await new SseReader(await post(url, callTool(id, "echo", text), headers)).nextMessage())?.message;

const trickles: Trickle[] = [];
afterEach(() => {
  for (const t of trickles.splice(0)) t.stop();
});

describe("limits", () => {
  test("an authenticated body trickled a byte at a time gets 408 at the body deadline and its connection is closed", async () => {
    const TOKEN = "token-0123456789abcdef";
    const { url } = await start({ auth: { bearerTokens: [TOKEN] }, limits: { requestBodyTimeoutMs: 500 } });
    const other = await openSession(url, { authorization: `Bearer ${TOKEN}` });
    // 1,000 bytes at one per 50 ms would take 50 s: the deadline ends it long before.
    const t = trickle(Number(url.port), url.pathname, { ...POST_HEADERS, authorization: `Bearer ${TOKEN}`, ...other.headers }, 1000, 50);
    trickles.push(t);
    const answer = await t.closed;
    expect(answer).toStartWith("HTTP/1.1 408");
    expect(answer).toContain("Request Timeout: the body did not arrive within 500 ms");
    expect(t.sent()).toBeLessThan(1000);
    // The session and the server are fine.
    expect(await echo(url, { authorization: `Bearer ${TOKEN}`, ...other.headers }, 2, "still fine")).toMatchObject({
      id: 2,
      result: { content: [{ text: "still fine" }] },
    });
  }, 15_000);

  test("an oversize body gets 413 (declared or streamed) while another session keeps working", async () => {
    const { url } = await start({ limits: { maxBodyBytes: 1024 } });
    const good = await openSession(url);
    const bad = await openSession(url);
    const big = callTool(1, "echo", "x".repeat(4096));
    const declared = await post(url, big, bad.headers);
    expect(declared.status).toBe(413);
    // No Content-Length: a chunked body is counted as it streams and cut off past the limit.
    const chunks = [new TextEncoder().encode(JSON.stringify(big))];
    const body = new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
    const streamed = await fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...bad.headers }, body });
    expect(streamed.status).toBe(413);
    expect(await echo(url, good.headers, 2, "still fine")).toMatchObject({ id: 2, result: { content: [{ text: "still fine" }] } });
    expect(await echo(url, bad.headers, 3, "small again")).toMatchObject({ id: 3 });
  });

  test("maxSessions: past it, with every session holding a stream, a new initialize gets 503; ending one makes room", async () => {
    const { url } = await start({ limits: { maxSessions: 2 } });
    const a = await openSession(url);
    const b = await openSession(url);
    const streams = await Promise.all(
      [a, b].map(async (s) => {
        const reader = new SseReader(await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } }));
        await reader.next();
        return reader;
      }),
    );
    const refused = await post(url, initializeRequest());
    expect(refused.status).toBe(503);
    expect(refused.headers.get("mcp-session-id")).toBeNull();
    expect((await fetch(url, { method: "DELETE", headers: a.headers })).status).toBe(204);
    expect((await openSession(url)).sessionId).toBeString();
    await Promise.all(streams.map((r) => r.cancel()));
  });

  test("maxSessions: a session holding nothing gives its slot up at once; its id then answers 404", async () => {
    const { url } = await start({ limits: { maxSessions: 2 } });
    const idle = await openSession(url);
    const held = await openSession(url);
    const reader = new SseReader(await fetch(url, { headers: { ...held.headers, accept: "text/event-stream" } }));
    await reader.next();
    expect((await openSession(url)).sessionId).toBeString();
    expect((await post(url, callTool(1, "echo"), idle.headers)).status).toBe(404);
    expect(await echo(url, held.headers, 2, "still here")).toMatchObject({ id: 2 });
    await reader.cancel();
  });

  test("maxInFlightPerSession: past it → 429, other sessions unaffected", async () => {
    const { url, responder } = await start({ limits: { maxInFlightPerSession: 2 } });
    const s = await openSession(url);
    const other = await openSession(url);
    const held = [post(url, callTool(1, "slow"), s.headers), post(url, callTool(2, "slow"), s.headers)];
    await responder.heldCount(2);
    const third = await post(url, callTool(3, "echo"), s.headers);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("1");
    expect(await echo(url, other.headers, 4, "ok")).toMatchObject({ id: 4 });
    responder.release();
    for (const r of held) expect((await new SseReader(await r).nextMessage())?.message).toHaveProperty("result");
    expect(await echo(url, s.headers, 5, "room again")).toMatchObject({ id: 5 });
  });

  test("maxStreamsPerSession counts POST and GET streams", async () => {
    const { url, responder } = await start({ limits: { maxStreamsPerSession: 1 } });
    const s = await openSession(url);
    const held = post(url, callTool(1, "slow"), s.headers);
    await responder.heldCount(1);
    expect((await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } })).status).toBe(429);
    responder.release();
    await new SseReader(await held).rest();
    const get = await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } });
    expect(get.status).toBe(200);
    await get.body?.cancel();
  });

  test("idle sessions with no open stream expire: onclose fires, the id answers 404", async () => {
    const logger = memoryLogger();
    const { url, responder } = await start({ limits: { sessionIdleMs: 100 }, logger });
    const s = await openSession(url);
    await responder.sessions[0]!.closed;
    expect((await post(url, callTool(1, "echo"), s.headers)).status).toBe(404);
    expect(logger.records.some((r) => r.event === "http.session.end" && r.reason === "idle")).toBe(true);
  });

  test("a session with an open GET stream does not expire", async () => {
    const { url, responder, server } = await start({ limits: { sessionIdleMs: 60 } });
    const kept = await openSession(url);
    const idle = await openSession(url);
    const get = new SseReader(await fetch(url, { headers: { ...kept.headers, accept: "text/event-stream" } }));
    await get.next();
    await responder.sessions[1]!.closed; // the idle one went, several reaper rounds have passed
    expect(responder.sessions[0]!.isClosed).toBe(false);
    expect(await echo(url, kept.headers, 1, "alive")).toMatchObject({ id: 1 });
    expect((await post(url, callTool(2, "echo"), idle.headers)).status).toBe(404);
    expect(server.stats()).toEqual({ sessions: 1, streams: 1 });
    await get.cancel();
  });

  test("a JSON-mode request waiting on a slow tool keeps its session from expiring", async () => {
    const { url, responder } = await start({ responseMode: "json", limits: { sessionIdleMs: 60 } });
    const busy = await openSession(url);
    const slow = post(url, callTool(1, "slow", "patience"), busy.headers);
    await responder.heldCount(1);
    await openSession(url);
    await responder.sessions[1]!.closed; // the idle one went: the reaper has run past the idle time
    expect(responder.sessions[0]!.isClosed).toBe(false);
    responder.release();
    expect(await (await slow).json()).toMatchObject({ id: 1, result: { content: [{ text: "patience" }] } });
  });

  test("a peer that stops reading its stream is cut off past maxBufferedBytes; others carry on", async () => {
    const logger = memoryLogger();
    const { url, responder, server } = await start({ logger, limits: { maxBufferedBytes: 1 << 20, eventStoreEvents: 4 } });
    const stalled = await openSession(url);
    const other = await openSession(url);
    const res = await fetch(url, { headers: { ...stalled.headers, accept: "text/event-stream" } }); // never read
    expect(res.status).toBe(200);
    const big = "x".repeat(256 * 1024);
    let sent = 0;
    // Bounded: kernel socket buffers absorb a few MiB before the server's own queue grows.
    while (server.stats().streams > 0 && sent < 400) {
      await responder.sessions[0]!.transport.send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: big },
      });
      sent++;
      await new Promise((r) => setImmediate(r));
    }
    expect(server.stats().streams).toBe(0);
    expect(logger.records.some((r) => r.event === "http.stream.cut")).toBe(true);
    expect(await echo(url, other.headers, 1, "unaffected")).toMatchObject({ id: 1 });
    await res.body?.cancel();
  });

  test("closing the server ends every session and stream", async () => {
    const { url, responder, server } = await start();
    const s = await openSession(url);
    const get = new SseReader(await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } }));
    await get.next();
    await server.close();
    await responder.sessions[0]!.closed;
    expect(await get.next()).toBeUndefined();
    expect(server.stats()).toEqual({ sessions: 0, streams: 0 });
  });
});
