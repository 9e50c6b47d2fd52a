import { afterEach, describe, expect, test } from "bun:test";
import { callTool, createResponder, initializeRequest, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<StreamableHttpServerOptions> = {}) {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, ...options });
  servers.push(server);
  const s = await openSession(server.url);
  const transport = responder.sessions[0]!.transport;
  const notify = (n: number) => transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } });
  const get = (lastEventId?: string) =>
    fetch(server.url, {
      headers: { ...s.headers, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    });
  return { server, url: server.url, responder, session: s, notify, get };
}

/** Wait until the server has noticed a dropped stream (no timing: poll the server's own count on each tick). */
async function untilStreams(server: StreamableHttpServer, n: number): Promise<void> {
  while (server.stats().streams !== n) await new Promise((r) => setImmediate(r));
}

const dataOf = (m: { message: Record<string, unknown> } | undefined) => (m?.message.params as { data?: unknown } | undefined)?.data;

/** Keep-alive comments in `text`. */
const keepAlives = (text: string) => (text.match(/: keep-alive\n\n/g) ?? []).length;

/**
 * A stream's raw text read on until `enough` holds (keep-alive comments are not events, so `SseReader` does
 * not see them); `text` is what was read before. Throws if the stream ends first.
 */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, enough: (text: string) => boolean, text = ""): Promise<string> {
  const decoder = new TextDecoder();
  while (!enough(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before it was read far enough: ${JSON.stringify(text.slice(-200))}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe("SSE resumption", () => {
  test("a broken GET stream resumes with Last-Event-ID: exactly the missed events, in order, once", async () => {
    const { server, notify, get } = await start();
    const first = new SseReader(await get());
    await first.next(); // priming
    await notify(1);
    await notify(2);
    const m1 = await first.nextMessage();
    const m2 = await first.nextMessage();
    expect([dataOf(m1), dataOf(m2)]).toEqual([1, 2]);

    await first.cancel(); // the network breaks
    await untilStreams(server, 0);
    for (let n = 3; n <= 6; n++) await notify(n);

    const second = new SseReader(await get(m2!.id));
    const priming = await second.next();
    expect(priming).toMatchObject({ data: "", id: m2!.id });
    const replayed = [];
    for (let i = 0; i < 4; i++) replayed.push(await second.nextMessage());
    expect(replayed.map(dataOf)).toEqual([3, 4, 5, 6]);
    // The resumed stream is live again: new messages follow, and nothing is replayed twice.
    await notify(7);
    const live = await second.nextMessage();
    expect(dataOf(live)).toBe(7);
    const ids = [m1, m2, ...replayed, live].map((m) => m!.id);
    expect(new Set(ids).size).toBe(ids.length);
    await second.cancel();
  });

  test("a broken POST stream resumes on GET with its own events only, then ends after the response", async () => {
    const { server, responder, session, url, notify, get } = await start();
    const standalone = new SseReader(await get());
    await standalone.next();
    const postRes = await post(url, callTool(11, "slow", "late"), session.headers);
    const postStream = new SseReader(postRes);
    const priming = await postStream.next();
    await responder.heldCount(1);
    await postStream.cancel();
    await untilStreams(server, 1);

    await notify(100); // belongs to the standalone stream, never to the POST stream
    responder.release(); // the response is written while the POST stream is away
    const resumed = new SseReader(await get(priming!.id));
    const events = (await resumed.rest()).filter((e) => e.data !== "");
    expect(events.map((e) => JSON.parse(e.data))).toEqual([
      { jsonrpc: "2.0", id: 11, result: { content: [{ type: "text", text: "late" }] } },
    ]);
    expect(dataOf(await standalone.nextMessage())).toBe(100);
    await standalone.cancel();
  });

  test("the event store keeps at most eventStoreEvents per session (oldest dropped)", async () => {
    const { server, notify, get } = await start({ limits: { eventStoreEvents: 3 } });
    const first = new SseReader(await get());
    const priming = await first.next();
    await first.cancel();
    await untilStreams(server, 0);
    for (let n = 1; n <= 8; n++) await notify(n);
    const second = new SseReader(await get(priming!.id));
    await second.next();
    const got = [await second.nextMessage(), await second.nextMessage(), await second.nextMessage()];
    expect(got.map(dataOf)).toEqual([6, 7, 8]);
    await notify(9);
    expect(dataOf(await second.nextMessage())).toBe(9);
    await second.cancel();
  });

  test("a Last-Event-ID that is malformed or names no stream of the session → 400", async () => {
    const { get } = await start();
    expect((await get("garbage")).status).toBe(400);
    expect((await get("999.1")).status).toBe(400);
  });

  test("event ids are unique across the streams of a session", async () => {
    const { url, session, get, notify } = await start();
    const standalone = new SseReader(await get());
    const ids: string[] = [(await standalone.next())!.id!];
    for (let i = 1; i <= 3; i++) {
      const events = await new SseReader(await post(url, callTool(i, "chatty"), session.headers)).rest();
      ids.push(...events.map((e) => e.id!));
      await notify(i);
      ids.push((await standalone.nextMessage())!.id!);
    }
    expect(ids.length).toBe(1 + 3 * 3 + 3);
    expect(new Set(ids).size).toBe(ids.length);
    await standalone.cancel();
  });
});

describe("keep-alive", () => {
  test("open streams carry periodic comments", async () => {
    const { get } = await start({ limits: { keepAliveMs: 20 } });
    const res = await get();
    const reader = res.body!.getReader();
    const text = await readUntil(reader, (t) => keepAlives(t) >= 2);
    expect(text).toStartWith("id: ");
    expect(text).toContain("retry: ");
    expect(keepAlives(text)).toBeGreaterThanOrEqual(2);
    await reader.cancel();
  });

  test("a POST whose answer is slow carries them too, and its stream counts as open from the start", async () => {
    const { server, url, session, responder } = await start({ limits: { keepAliveMs: 20 } });
    const pending = post(url, callTool(1, "slow", "late"), session.headers);
    await responder.heldCount(1);
    expect(server.stats().streams).toBe(1);
    const reader = (await pending).body!.getReader();
    const text = await readUntil(reader, (t) => keepAlives(t) >= 2);
    expect(text).toStartWith("id: ");
    expect(server.stats().streams).toBe(1);
    responder.release();
    await readUntil(reader, (t) => t.includes('"text":"late"'), text);
    await untilStreams(server, 0);
  });
});

describe("long-lived connections", () => {
  test("a quiet SSE stream and a slow JSON answer both outlive Bun's idle timeout", async () => {
    // keepAliveMs 1000 → idleTimeout 10 s. Count 12 keep-alives (> 10 s), no sleeps.
    const sse = await start({ limits: { keepAliveMs: 1000 } });
    const json = await start({ responseMode: "json", limits: { keepAliveMs: 1000 } });
    const slow = post(json.url, callTool(1, "slow", "still here"), json.session.headers);
    await json.responder.heldCount(1);

    const res = await sse.get();
    const reader = res.body!.getReader();
    await readUntil(reader, (t) => keepAlives(t) >= 12);
    await sse.notify(42);
    await readUntil(reader, (t) => t.includes('"data":42'));
    await reader.cancel();

    json.responder.release();
    expect(await (await slow).json()).toMatchObject({ id: 1, result: { content: [{ text: "still here" }] } });
  }, 40_000);

  test("the initialize stream is resumable until the client sends notifications/initialized, then it is over (204)", async () => {
    const responder = createResponder();
    const server = await createStreamableHttpServer({ onsession: responder.onsession });
    servers.push(server);
    const res = await post(server.url, initializeRequest(0));
    const sessionId = res.headers.get("mcp-session-id")!;
    const reader = new SseReader(res);
    const priming = await reader.next();
    const answer = await reader.nextMessage();
    expect(answer?.message).toMatchObject({ id: 0, result: { protocolVersion: "2025-11-25" } });
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    const resume = () => fetch(server.url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": priming!.id! } });

    // The body may have been cut before the client read it: the answer is replayed.
    const replay = new SseReader(await resume());
    await replay.next();
    expect((await replay.nextMessage())?.message).toEqual(answer!.message);
    await replay.rest();

    // The client only sends initialized once it has the result: nothing is kept for that stream any more.
    expect((await post(server.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
    expect((await resume()).status).toBe(204);
  });

  test("a resumption whose replay overflows the buffer holds no stream: the next GET opens a fresh one", async () => {
    const { server, responder, get } = await start({ limits: { maxBufferedBytes: 64 * 1024 } });
    const first = new SseReader(await get());
    const priming = await first.next();
    await first.cancel(); // the network breaks
    await untilStreams(server, 0);
    const big = "x".repeat(30 * 1024);
    for (let i = 0; i < 3; i++)
      await responder.sessions[0]!.transport.send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: big },
      });
    const resumed = await get(priming!.id);
    expect(resumed.status).toBe(200);
    await resumed.body?.cancel();
    await untilStreams(server, 0);
    const fresh = await get();
    expect(fresh.status).toBe(200);
    const reader = new SseReader(fresh);
    expect(await reader.next()).toMatchObject({ data: "" });
    await reader.cancel();
  });
});
