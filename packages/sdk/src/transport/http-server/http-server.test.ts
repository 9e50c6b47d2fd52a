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
  return { server, url: server.url, responder };
}

const errorOf = async (res: Response) => (await res.json()) as { id: unknown; error: { code: number } };

describe("POST", () => {
  test("initialize returns a CSPRNG session id and an SSE answer; later requests need it", async () => {
    const { url, responder } = await start();
    const res = await post(url, initializeRequest(1));
    expect(res.status).toBe(200);
    const id = res.headers.get("mcp-session-id")!;
    expect(id).toMatch(/^[\x21-\x7e]{32,}$/);
    expect(id.length * 4).toBeGreaterThanOrEqual(128); // hex digits carry 4 bits each
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reply = await new SseReader(res).nextMessage();
    expect(reply?.message).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });

    const other = await openSession(url);
    expect(other.sessionId).not.toBe(id);
    expect(responder.sessions.length).toBe(2);

    const missing = await post(url, callTool(2, "echo"));
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).error.code).toBe(-32600);
    const unknown = await post(url, callTool(2, "echo"), { "mcp-session-id": "f".repeat(48) });
    expect(unknown.status).toBe(404);
  });

  test("notifications and responses only → 202 with no body, delivered with session id and headers", async () => {
    const { url, responder } = await start();
    const s = await openSession(url);
    const res = await post(
      url,
      { jsonrpc: "2.0", id: "srv-1", result: {} },
      { ...s.headers, authorization: "Bearer secret-never-upward", "x-trace": "t1" },
    );
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    const got = responder.sessions[0]!.received.at(-1)!;
    expect(got.message).toEqual({ jsonrpc: "2.0", id: "srv-1", result: {} });
    expect(got.extra?.sessionId).toBe(s.sessionId);
    expect(got.extra?.headers?.["x-trace"]).toBe("t1");
    expect(got.extra?.headers?.authorization).toBeUndefined();
    expect(got.extra?.authInfo).toBeUndefined();
  });

  test("a request gets an SSE stream with a priming event, related messages, the response, then the end", async () => {
    const { url } = await start({ limits: { retryMs: 2500 } });
    const s = await openSession(url);
    const res = await post(url, callTool(7, "chatty", "x"), s.headers);
    const reader = new SseReader(res);
    const events = await reader.rest();
    expect(reader.retry).toBe(2500);
    expect(events[0]).toMatchObject({ data: "" });
    expect(events[0]!.id).toBeTruthy();
    expect(JSON.parse(events[1]!.data)).toMatchObject({ method: "notifications/message" });
    expect(JSON.parse(events[2]!.data)).toMatchObject({ id: 7, result: { content: [{ text: "x" }] } });
    expect(events.length).toBe(3);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  test("406 without both media types in Accept, 415 for a non-JSON body type", async () => {
    const { url } = await start();
    expect((await post(url, initializeRequest(), { accept: "application/json" })).status).toBe(406);
    expect((await post(url, initializeRequest(), { accept: "text/event-stream" })).status).toBe(406);
    expect((await post(url, initializeRequest(), { "content-type": "text/plain" })).status).toBe(415);
  });

  test("bad JSON → 400 with a -32700 body; an invalid envelope → 400 with -32600", async () => {
    const { url } = await start();
    const s = await openSession(url);
    const bad = await post(url, "{not json", s.headers);
    expect(bad.status).toBe(400);
    const parsed = await errorOf(bad);
    expect(parsed.error.code).toBe(-32700);
    expect(parsed.id ?? null).toBeNull(); // an error "that has no id" (null or absent)
    const invalid = await post(url, { jsonrpc: "1.0", id: 5, method: "ping" }, s.headers);
    expect(invalid.status).toBe(400);
    expect(await errorOf(invalid)).toMatchObject({ id: 5, error: { code: -32600 } });
  });

  test("MCP-Protocol-Version: unsupported → 400; another supported one and absent are accepted", async () => {
    const { url } = await start();
    const s = await openSession(url, {}, "2025-06-18");
    const h = { "mcp-session-id": s.sessionId };
    expect((await post(url, callTool(1, "echo"), { ...h, "mcp-protocol-version": "1999-01-01" })).status).toBe(400);
    // The spec's 400 is for "invalid or unsupported"; the conformance suite sends 2025-03-26 on a newer session.
    const other = await post(url, callTool(2, "echo"), { ...h, "mcp-protocol-version": "2025-11-25" });
    expect(other.status).toBe(200);
    expect((await new SseReader(other).nextMessage())?.message).toMatchObject({ id: 2 });
    const ok = await post(url, callTool(3, "echo"), h);
    expect(ok.status).toBe(200);
    expect((await new SseReader(ok).nextMessage())?.message).toMatchObject({ id: 3 });
  });

  test("batches: only in a 2025-03-26 session, answered on one stream", async () => {
    const { url } = await start();
    const modern = await openSession(url);
    const batch = [callTool(1, "echo", "a"), callTool(2, "echo", "b")];
    expect((await post(url, batch, modern.headers)).status).toBe(400);

    const legacy = await openSession(url, {}, "2025-03-26");
    const res = await post(url, batch, legacy.headers);
    expect(res.status).toBe(200);
    const ids = (await new SseReader(res).rest()).filter((e) => e.data).map((e) => JSON.parse(e.data).id);
    expect(ids.sort()).toEqual([1, 2]);
    expect((await post(url, [], legacy.headers)).status).toBe(400);
    expect((await post(url, [initializeRequest(9)], legacy.headers)).status).toBe(400);
  });

  test("a request id already in flight is refused", async () => {
    const { url, responder } = await start();
    const s = await openSession(url);
    const first = post(url, callTool(1, "slow"), s.headers);
    await responder.heldCount(1);
    const dup = await post(url, callTool(1, "echo"), s.headers);
    expect(dup.status).toBe(400);
    responder.release();
    expect((await new SseReader(await first).nextMessage())?.message).toMatchObject({ id: 1 });
  });

  test("the initialize id may be reused later without confusing the session", async () => {
    const { url } = await start();
    const s = await openSession(url); // initialize had id 0
    const again = await post(url, callTool(0, "echo", "reused"), s.headers);
    expect((await new SseReader(again).nextMessage())?.message).toMatchObject({ id: 0, result: { content: [{ text: "reused" }] } });
    expect((await post(url, callTool(1, "echo"), s.headers)).status).toBe(200);
  });

  test("a failed initialize ends its session", async () => {
    const { url, responder } = await start();
    const res = await post(url, initializeRequest(1, "fail"));
    const id = res.headers.get("mcp-session-id")!;
    expect((await new SseReader(res).nextMessage())?.message).toMatchObject({ error: { code: -32602 } });
    await responder.sessions[0]!.closed;
    expect((await post(url, callTool(2, "echo"), { "mcp-session-id": id })).status).toBe(404);
  });

  test("JSON response mode answers one application/json body; related notifications go to the GET stream", async () => {
    const { url } = await start({ responseMode: "json" });
    const s = await openSession(url);
    expect(s.result).toMatchObject({ id: 0, result: { protocolVersion: "2025-11-25" } });
    const get = new SseReader(await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } }));
    await get.next(); // priming
    const res = await post(url, callTool(4, "chatty", "j"), s.headers);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: 4, result: { content: [{ text: "j" }] } });
    expect((await get.nextMessage())?.message).toMatchObject({ method: "notifications/message" });
    await get.cancel();
  });
});

describe("GET and DELETE", () => {
  test("GET opens one standalone stream for server-initiated messages; a second gets 409", async () => {
    const { url, responder } = await start();
    const s = await openSession(url);
    const sseHeaders = { ...s.headers, accept: "text/event-stream" };
    expect((await fetch(url, { headers: { ...s.headers, accept: "application/json" } })).status).toBe(406);
    const res = await fetch(url, { headers: sseHeaders });
    expect(res.status).toBe(200);
    const reader = new SseReader(res);
    const priming = await reader.next();
    expect(priming).toMatchObject({ data: "" });
    expect(reader.retry).toBeNumber();
    expect((await fetch(url, { headers: sseHeaders })).status).toBe(409);
    await responder.sessions[0]!.transport.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    const got = await reader.nextMessage();
    expect(got?.message).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(got?.id).not.toBe(priming?.id);
    await reader.cancel();
  });

  test("DELETE ends the session: onclose fires, then every method answers 404", async () => {
    const { url, responder, server } = await start();
    const s = await openSession(url);
    const del = await fetch(url, { method: "DELETE", headers: s.headers });
    expect(del.status).toBe(204);
    await responder.sessions[0]!.closed;
    expect((await post(url, callTool(1, "echo"), s.headers)).status).toBe(404);
    expect((await fetch(url, { headers: { ...s.headers, accept: "text/event-stream" } })).status).toBe(404);
    expect((await fetch(url, { method: "DELETE", headers: s.headers })).status).toBe(404);
    expect((await fetch(url, { method: "DELETE" })).status).toBe(400);
    expect(server.stats().sessions).toBe(0);
    await expect(responder.sessions[0]!.transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow();
  });

  test("the server closing a session's transport ends it the same way", async () => {
    const { url, responder } = await start();
    const s = await openSession(url);
    await responder.sessions[0]!.transport.close();
    expect(responder.sessions[0]!.isClosed).toBe(true);
    expect((await post(url, callTool(1, "echo"), s.headers)).status).toBe(404);
  });

  test("other methods → 405 with Allow; other paths → 404; extra routes answer", async () => {
    const { url } = await start({ routes: { "/healthz": () => new Response("ok") } });
    const put = await fetch(url, { method: "PUT", body: "x" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
    expect((await fetch(new URL("/nope", url))).status).toBe(404);
    const health = await fetch(new URL("/healthz", url));
    expect(health.status).toBe(200);
    expect(await health.text()).toBe("ok");
    expect((await fetch(new URL("/healthz", url), { method: "POST" })).status).toBe(405);
    expect((await fetch(new URL("/.well-known/oauth-protected-resource", url))).status).toBe(404);
  });
});

describe("Origin and Host", () => {
  test("no Origin and loopback origins pass; other origins get 403", async () => {
    const { url } = await start();
    const s = await openSession(url);
    const ping = (n: number, origin?: string) =>
      post(url, { jsonrpc: "2.0", method: "notifications/x", params: { n } }, origin ? { ...s.headers, origin } : s.headers);
    expect((await ping(1)).status).toBe(202);
    expect((await ping(2, `http://localhost:${url.port}`)).status).toBe(202);
    expect((await ping(3, "http://127.0.0.1:5173")).status).toBe(202);
    const evil = await ping(4, "https://evil.example");
    expect(evil.status).toBe(403);
    expect((await errorOf(evil)).id ?? null).toBeNull();
    expect((await ping(5, "null")).status).toBe(403);
    expect((await post(url, initializeRequest(), { origin: "http://attacker.test" })).status).toBe(403);
  });

  test("allowedOrigins replaces the loopback default", async () => {
    const { url } = await start({ allowedOrigins: ["https://app.example"] });
    expect((await post(url, initializeRequest(), { origin: "https://app.example" })).status).toBe(200);
    expect((await post(url, initializeRequest(), { origin: `http://localhost:${url.port}` })).status).toBe(403);
  });

  test("a Host header other than the bound loopback names gets 403 (DNS rebinding)", async () => {
    const { url } = await start();
    expect((await post(url, initializeRequest(), { host: `localhost:${url.port}` })).status).toBe(200);
    expect((await post(url, initializeRequest(), { host: `rebound.attacker.test:${url.port}` })).status).toBe(403);
    expect((await post(url, initializeRequest(), { host: "127.0.0.1:1" })).status).toBe(403);
  });

  test("allowedHosts entries without a port match any port", async () => {
    const { url } = await start({ allowedHosts: ["mcp.internal"] });
    expect((await post(url, initializeRequest(), { host: "mcp.internal:8443" })).status).toBe(200);
    expect((await post(url, initializeRequest(), { host: `127.0.0.1:${url.port}` })).status).toBe(403);
  });
});
