/**
 * What a response starts with. A priming event (event id, empty `data`) only in a 2025-11-25 session, the
 * revision that defines it: clients of earlier revisions (the official SDK 1.12) and of 2026-07-28 (the AI
 * SDK's MCP client) parse an empty `data` as a message and report errors. A 2026-07-28 request answered
 * with nothing before its result gets one JSON body, as does every one under `responseMode: "json"`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { callTool, createResponder, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(responseMode: "sse" | "json" = "sse") {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, responseMode });
  servers.push(server);
  return { server, responder };
}

const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

/** A stateless 2026-07-28 tools/call of the responder's tool `name`. */
const statelessCall = (url: URL, id: number, name: string) =>
  post(
    url,
    { jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name, arguments: { text: "hi" } } },
    { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
  );

/** The SSE lines of a body that would dispatch an event with empty data (a `data:` line with nothing after it). */
const emptyDataLines = (text: string) => text.split("\n").filter((line) => /^data: ?$/.test(line));

describe("2026-07-28 (stateless) answers", () => {
  test("an answer ready at once is one application/json body", async () => {
    const { server } = await start();
    const r = await statelessCall(server.url, 1, "echo");
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await r.json()).toMatchObject({ id: 1, result: { content: [{ text: "hi" }] } });
  });

  test("an answer that comes later, with nothing before it, is still one JSON body (the response waits for it)", async () => {
    const { server, responder } = await start();
    const pending = statelessCall(server.url, 2, "slow");
    await responder.heldCount(1);
    responder.release();
    const r = await pending;
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await r.json()).toMatchObject({ id: 2, result: { content: [{ text: "hi" }] } });
  });

  test("a notification before the answer makes an SSE stream, with no empty event, no id and no retry", async () => {
    const { server } = await start();
    const r = await statelessCall(server.url, 3, "chatty");
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    const text = await r.text();
    expect(emptyDataLines(text)).toEqual([]);
    expect(text.split("\n").filter((l) => l.startsWith("id:") || l.startsWith("retry:"))).toEqual([]);
    const messages = text
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)));
    expect(messages.map((m) => m.method ?? m.id)).toEqual(["notifications/message", 3]);
  });

  test('responseMode "json" answers with one JSON body even when a notification comes first', async () => {
    const { server } = await start("json");
    const r = await statelessCall(server.url, 4, "chatty");
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(await r.json()).toMatchObject({ id: 4, result: { content: [{ text: "hi" }] } });
    while (server.stats().sessions > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  });

  test("a client that leaves while its answer is held cancels the request: its session ends", async () => {
    const { server, responder } = await start();
    const abort = new AbortController();
    const pending = fetch(server.url, {
      method: "POST",
      signal: abort.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "slow",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "tools/call",
        params: { _meta: META, name: "slow", arguments: { text: "hi" } },
      }),
    }).catch(() => "aborted");
    await responder.heldCount(1);
    abort.abort();
    expect(await pending).toBe("aborted");
    await responder.sessions[0]!.closed;
    expect(responder.sessions[0]!.isClosed).toBe(true);
  });
});

describe("sessions of revisions before 2025-11-25", () => {
  test("a 2025-03-26 session gets no priming event: a slow answer's stream starts with a comment, a GET stream too", async () => {
    const { server, responder } = await start();
    const { headers } = await openSession(server.url, {}, "2025-03-26");
    const res = await post(server.url, callTool(7, "slow"), headers);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    await responder.heldCount(1);
    responder.release();
    const text = await res.text();
    expect(text.startsWith(":")).toBe(true);
    expect(emptyDataLines(text)).toEqual([]);
    expect(text).toContain('"id":7');

    const get = await fetch(server.url, { headers: { ...headers, accept: "text/event-stream" } });
    const reader = get.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first.startsWith(":")).toBe(true);
    await reader.cancel();
  });

  test("a 2025-03-26 session still resumes a broken GET stream with Last-Event-ID, and the resumed stream has no empty event", async () => {
    const { server, responder } = await start();
    const { headers } = await openSession(server.url, {}, "2025-03-26");
    const get = (lastEventId?: string) =>
      fetch(server.url, { headers: { ...headers, accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) } });
    const notify = (n: number) =>
      responder.sessions[0]!.transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } });
    const first = new SseReader(await get());
    await notify(1);
    const m1 = await first.nextMessage();
    expect(m1?.id).toMatch(/^\d+\.1$/);
    await first.cancel(); // the network breaks
    while (server.stats().streams !== 0) await new Promise((r) => setImmediate(r));
    await notify(2);
    const resumed = new SseReader(await get(m1!.id));
    const next = await resumed.next();
    expect(next?.data).not.toBe("");
    expect(JSON.parse(next!.data)).toMatchObject({ params: { data: 2 } });
    await resumed.cancel();
  });

  test("a 2025-11-25 session keeps its priming event (id and retry), which resumption starts from", async () => {
    const { server, responder } = await start();
    const { headers } = await openSession(server.url, {}, "2025-11-25");
    const res = await post(server.url, callTool(8, "slow"), headers);
    const reader = new SseReader(res);
    const priming = await reader.next();
    expect(priming).toMatchObject({ data: "" });
    expect(priming?.id).toMatch(/^\d+\.0$/);
    await responder.heldCount(1);
    responder.release();
    expect((await reader.nextMessage())?.message).toMatchObject({ id: 8 });
  });
});
