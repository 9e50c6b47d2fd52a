/**
 * One client cannot lock others out: session caps per principal as well as server-wide, sessions that never
 * complete initialization expire, and a session whose connection was released gives its slot up at once.
 * Two bearer tokens over real HTTP on 127.0.0.1.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { callTool, createResponder, initializeRequest, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";

const A = "token-a-0123456789abcdef";
const B = "token-b-0123456789abcdef";
const as = (token: string) => ({ authorization: `Bearer ${token}` });

const servers: StreamableHttpServer[] = [];
const readers: SseReader[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((r) => r.cancel()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(limits: NonNullable<StreamableHttpServerOptions["limits"]>, extra: Partial<StreamableHttpServerOptions> = {}) {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, auth: { bearerTokens: [A, B] }, limits, ...extra });
  servers.push(server);
  return { server, url: server.url, responder };
}

/** Wait until the server's own stream count is `n` (checked on each turn of the event loop). */
async function untilStreams(server: StreamableHttpServer, n: number): Promise<void> {
  while (server.stats().streams !== n) await new Promise((r) => setImmediate(r));
}

/** A session of `token` holding an open GET stream (what an attentive client keeps). */
async function holdingSession(url: URL, token: string) {
  const s = await openSession(url, as(token));
  const reader = new SseReader(await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } }));
  readers.push(reader);
  await reader.next(); // the priming event: the stream is open
  return { ...s, reader };
}

const bareInitialize = async (url: URL, token: string) => {
  const res = await post(url, initializeRequest(), as(token));
  await res.body?.cancel();
  return res.status;
};

describe("session caps per principal", () => {
  test("a flood of bare initialize POSTs by one token never refuses the other, nor the flooder itself", async () => {
    const { server, url } = await start({ maxSessions: 8, maxSessionsPerPrincipal: 4 });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push(await bareInitialize(url, A));
    // Sessions that never completed initialization hold nothing: each new one takes the oldest one's slot.
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(server.stats().sessions).toBeLessThanOrEqual(4);
    const b = await openSession(url, as(B));
    expect((await post(url, callTool(1, "echo"), b.headers)).status).toBe(200);
  });

  test("a token holding its cap of open streams gets 429; the other token keeps getting sessions", async () => {
    const { url } = await start({ maxSessions: 8, maxSessionsPerPrincipal: 3 });
    for (let i = 0; i < 3; i++) await holdingSession(url, A);
    const refused = await post(url, initializeRequest(), as(A));
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("this principal already holds 3 sessions");
    for (let i = 0; i < 3; i++) await holdingSession(url, B);
    // The cap is each principal's own: B at its cap is refused the same way, A still is.
    expect(await bareInitialize(url, B)).toBe(429);
    expect(await bareInitialize(url, A)).toBe(429);
  });

  test("server-wide cap: 503 only once every session holds a stream; a released connection frees its slot at once", async () => {
    const { server, url } = await start({ maxSessions: 4, maxSessionsPerPrincipal: 3 });
    const held = [await holdingSession(url, A), await holdingSession(url, A), await holdingSession(url, B), await holdingSession(url, B)];
    expect(await bareInitialize(url, B)).toBe(503);
    // A's clients leave: their connections are released, and with them their slots.
    await held[0]!.reader.cancel();
    await held[1]!.reader.cancel();
    await untilStreams(server, 2);
    expect(await bareInitialize(url, B)).toBe(200);
    const again = await openSession(url, as(A));
    expect((await post(url, callTool(1, "echo"), again.headers)).status).toBe(200);
    // The sessions that gave their slots up are gone: their ids answer 404.
    expect((await post(url, callTool(2, "echo"), held[0]!.headers)).status).toBe(404);
  });

  test("a session whose client never sends notifications/initialized ends after initializeTimeoutMs", async () => {
    const logger = memoryLogger();
    const { server, url, responder } = await start({ initializeTimeoutMs: 100 }, { logger });
    expect(await bareInitialize(url, A)).toBe(200);
    await responder.sessions[0]!.closed;
    expect(server.stats().sessions).toBe(0);
    expect(logger.records.some((r) => r.event === "http.session.end" && r.reason === "not initialized in time")).toBe(true);
  });

  test("without auth every caller is one principal: only the server-wide cap applies", async () => {
    const responder = createResponder();
    const server = await createStreamableHttpServer({
      onsession: responder.onsession,
      limits: { maxSessions: 4, maxSessionsPerPrincipal: 1 },
    });
    servers.push(server);
    for (let i = 0; i < 4; i++) {
      const s = await openSession(server.url);
      const reader = new SseReader(await fetch(server.url, { headers: { ...s.headers, accept: "text/event-stream" } }));
      readers.push(reader);
      await reader.next();
    }
    expect(await bareInitialize(server.url, "")).toBe(503);
  });
});
