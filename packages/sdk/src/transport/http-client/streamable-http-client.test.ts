/**
 * Edge cases of the Streamable HTTP client transport, against small scripted servers on 127.0.0.1.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import { collect, initializeParams } from "./__fixtures__/collect.ts";
import { initialized, result, sse, startFakeServer, type FakeServer, type SeenRequest } from "./__fixtures__/fake-server.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";

const fast = { initialDelayMs: 20, maxDelayMs: 100, growFactor: 2, maxRetries: 3 };
const T = 30_000;

const servers: FakeServer[] = [];
const clients: StreamableHttpClientTransport[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const serve = (handler: Parameters<typeof startFakeServer>[0], path?: string) => {
  const s = startFakeServer(handler, path);
  servers.push(s);
  return s;
};
const connect = async (url: string, options: ConstructorParameters<typeof StreamableHttpClientTransport>[1] = {}) => {
  const t = new StreamableHttpClientTransport(url, { reconnect: fast, ...options });
  clients.push(t);
  const c = collect(t);
  await t.start();
  return { t, c };
};
const isRequest = (r: SeenRequest, method: string) => (r.body as { method?: string } | undefined)?.method === method;
const bodyOf = (r: SeenRequest) => (r.body ?? {}) as { id?: unknown; method?: string };

describe("StreamableHttpClientTransport edge cases", () => {
  test(
    "an SSE response carries a server request and a notification before the response; our answer goes back by POST",
    async () => {
      let held: ReturnType<typeof sse> | undefined;
      const server = serve((req) => {
        const m = bodyOf(req);
        if (m.method === "initialize") return initialized(m.id);
        if (m.method === "tools/call") {
          held = sse();
          held.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } });
          held.send({ jsonrpc: "2.0", id: "srv-1", method: "roots/list" });
          return held.response;
        }
        if (m.id === "srv-1") {
          held!.send(result(7, { content: [] }));
          held!.end();
        }
        return new Response(null, { status: 202 });
      });
      const { t, c } = await connect(server.url, { openGetStream: false });
      await c.request("initialize", initializeParams());
      await t.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "x" } });
      await c.until(() => c.messages.some((m) => m.id === "srv-1"), "the server's roots/list request");
      await t.send({ jsonrpc: "2.0", id: "srv-1", result: { roots: [] } });
      await c.until(() => c.messages.some((m) => m.id === 7), "the tools/call response");
      expect(c.messages.slice(1).map((m) => m.method ?? `response ${m.id}`)).toEqual([
        "notifications/progress",
        "roots/list",
        "response 7",
      ]);
      const answer = server.requests.find((r) => bodyOf(r).id === "srv-1")!;
      expect(answer.headers["mcp-session-id"]).toBe("sess-1");
      expect(answer.headers.accept).toBe("application/json, text/event-stream");
      expect(answer.headers["content-type"]).toBe("application/json");
    },
    T,
  );

  test(
    "configured headers go on every request; initialize carries no session; a JSON batch body is delivered in order",
    async () => {
      const server = serve((req) => {
        const m = bodyOf(req);
        if (m.method === "initialize") return initialized(m.id, "s-42");
        if (m.method === "batchy") return Response.json([{ jsonrpc: "2.0", method: "n/one" }, result(m.id, { ok: true })]);
        return new Response(null, { status: 202 });
      });
      const { t, c } = await connect(server.url, {
        headers: { Authorization: "Bearer tok-123456789", "X-Tenant": "acme" },
        openGetStream: false,
      });
      await c.request("initialize", initializeParams());
      t.setProtocolVersion("2025-06-18");
      await c.request("batchy");
      expect(c.messages.slice(1).map((m) => m.method ?? "response")).toEqual(["n/one", "response"]);
      const [init, later] = server.requests;
      expect(init!.headers).toMatchObject({ authorization: "Bearer tok-123456789", "x-tenant": "acme" });
      expect(init!.headers["mcp-session-id"]).toBeUndefined();
      expect(init!.headers["mcp-protocol-version"]).toBeUndefined();
      expect(later!.headers).toMatchObject({
        authorization: "Bearer tok-123456789",
        "mcp-session-id": "s-42",
        "mcp-protocol-version": "2025-06-18",
      });
    },
    T,
  );

  for (const status of [401, 403]) {
    test(
      `HTTP ${status}: E_UNAUTHORIZED naming the server, never echoing the token`,
      async () => {
        const server = serve((req) => new Response(`bad token ${req.headers.authorization}`, { status }));
        const { t } = await connect(server.url, { name: "remote", headers: { Authorization: "Bearer s3cr3t-t0ken-value" } });
        const err = await t.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams() }).catch((e) => e);
        expect(AgentdError.isInstance(err) && err.code).toBe("E_UNAUTHORIZED");
        expect(err.message).toContain("MCP server 'remote'");
        expect(err.message).toContain(`HTTP ${status}`);
        expect(err.message).not.toContain("s3cr3t");
      },
      T,
    );
  }

  test(
    "a server error body that echoes the token is masked",
    async () => {
      const server = serve((req) =>
        Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32600, message: `no good: ${req.headers.authorization}` } },
          { status: 400 },
        ),
      );
      const { t } = await connect(server.url, { name: "remote", headers: { Authorization: "Bearer s3cr3t-t0ken-value" } });
      const err = await t.send({ jsonrpc: "2.0", id: 1, method: "ping" }).catch((e) => e);
      expect(err.code).toBe("E_TRANSPORT");
      expect(err.message).toContain("HTTP 400");
      expect(err.message).not.toContain("s3cr3t");
    },
    T,
  );

  test(
    "405 on GET: remembered as unsupported, never retried",
    async () => {
      const server = serve((req) => {
        if (req.method === "GET") return new Response(null, { status: 405 });
        const m = bodyOf(req);
        return m.method === "initialize" ? initialized(m.id) : new Response(null, { status: 202 });
      });
      const { t, c } = await connect(server.url);
      await c.request("initialize", initializeParams());
      await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await c.until(() => t.getStreamState === "unsupported", "the GET stream to be marked unsupported");
      expect(await t.openGetStream()).toBe("unsupported");
      await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(1);
      expect(c.errors).toEqual([]);
    },
    T,
  );

  test(
    "409 on GET (the old stream not yet noticed gone) is retried until the stream opens",
    async () => {
      const server = serve((req, n) => {
        if (req.method !== "GET") return initialized(bodyOf(req).id);
        if (server.requests.filter((r) => r.method === "GET").length < 3) return new Response("Conflict", { status: 409 });
        const s = sse();
        s.send({ jsonrpc: "2.0", method: "pushed", params: { n } });
        return s.response;
      });
      const { t, c } = await connect(server.url);
      await c.request("initialize", initializeParams());
      await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      await c.until(() => c.notes("pushed").length === 1, "a message on the GET stream");
      expect(t.getStreamState).toBe("open");
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(3);
      expect(c.errors).toEqual([]);
    },
    T,
  );

  test(
    "close(): DELETE with the session; a 405 answer is tolerated; onclose once",
    async () => {
      const server = serve((req) => {
        if (req.method === "DELETE") return new Response(null, { status: 405 });
        const m = bodyOf(req);
        return initialized(m.id, "to-delete");
      });
      const { t, c } = await connect(server.url, { openGetStream: false });
      await c.request("initialize", initializeParams());
      await Promise.all([t.close(), t.close()]);
      expect(c.closes).toBe(1);
      const del = server.requests.filter((r) => r.method === "DELETE");
      expect(del).toHaveLength(1);
      expect(del[0]!.headers["mcp-session-id"]).toBe("to-delete");
    },
    T,
  );

  test(
    "terminateSession(): DELETE, then the session is forgotten",
    async () => {
      const server = serve((req) => (req.method === "DELETE" ? new Response(null, { status: 200 }) : initialized(bodyOf(req).id, "s-t")));
      const { t, c } = await connect(server.url, { openGetStream: false });
      await c.request("initialize", initializeParams());
      expect(t.sessionId).toBe("s-t");
      await t.terminateSession();
      expect(t.sessionId).toBeUndefined();
      await t.close();
      expect(server.requests.filter((r) => r.method === "DELETE")).toHaveLength(1); // close() had no session left
    },
    T,
  );

  test(
    "a server that only speaks the 2024-11-05 HTTP+SSE transport is refused with a clear error",
    async () => {
      const server = serve((req) => {
        if (req.method === "POST") return new Response("Method Not Allowed", { status: 405 });
        const s = sse();
        s.write("event: endpoint\ndata: /messages?sessionId=abc\n\n"); // and keeps the stream open, as old servers do
        return s.response;
      }, "/sse");
      const { t } = await connect(server.url, { name: "old" });
      const err = await t.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams() }).catch((e) => e);
      expect(err.code).toBe("E_TRANSPORT");
      expect(err.message).toContain("MCP server 'old' only speaks the deprecated 2024-11-05 HTTP+SSE transport");
      expect(err.message).toContain("agentd does not support");
    },
    T,
  );

  test(
    "a plain 404 endpoint is not mistaken for the old transport",
    async () => {
      const server = serve(() => new Response("nothing here", { status: 404 }));
      const { t } = await connect(server.url, { name: "gone" });
      const err = await t.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams() }).catch((e) => e);
      expect(err.code).toBe("E_TRANSPORT");
      expect(err.message).toBe("MCP server 'gone' answered POST with HTTP 404: nothing here");
      expect(server.requests.map((r) => r.method)).toEqual(["POST", "GET"]); // the probe ran, found no `endpoint` event
    },
    T,
  );

  test(
    "a response stream that breaks without any event id ends its request with a local error response",
    async () => {
      const server = serve((req) => {
        const s = sse();
        s.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
        s.end();
        return req.method === "POST" ? s.response : new Response(null, { status: 405 });
      });
      const { t, c } = await connect(server.url, { name: "flaky" });
      await t.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: {} });
      await c.until(() => c.messages.some((m) => m.id === 5), "the local error response");
      const res = c.messages.find((m) => m.id === 5);
      expect(res.error.code).toBe(-32000);
      expect(res.error.message).toContain("MCP server 'flaky'");
      expect(res.error.data).toEqual({ code: "E_CONNECTION_CLOSED" });
      expect(c.notes("notifications/message")).toHaveLength(1);
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0); // nothing to resume from
    },
    T,
  );

  test(
    "a resumed stream replaying events already seen delivers each once, and respects the server's retry",
    async () => {
      let resumedAt = 0;
      let brokeAt = 0;
      const server = serve((req) => {
        if (req.method === "POST") {
          const s = sse();
          s.write("retry: 200\n\n");
          for (const n of [1, 2, 3]) s.send({ jsonrpc: "2.0", method: "n", params: { n } }, `e${n}`);
          brokeAt = performance.now();
          s.end();
          return s.response;
        }
        resumedAt = performance.now();
        const s = sse();
        for (const n of [2, 3, 4]) s.send({ jsonrpc: "2.0", method: "n", params: { n } }, `e${n}`); // overlaps what we saw
        s.send(result(9, { done: true }), "e5");
        s.end();
        return s.response;
      });
      const tokens: string[] = [];
      const { t, c } = await connect(server.url);
      await t.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: {} }, { onresumptiontoken: (tok) => tokens.push(tok) });
      await c.until(() => c.messages.some((m) => m.id === 9), "the response after the resume");
      expect(c.notes("n").map((m) => m.params.n)).toEqual([1, 2, 3, 4]);
      expect(c.messages.filter((m) => m.id === 9)).toHaveLength(1);
      const get = server.requests.find((r) => r.method === "GET")!;
      expect(get.headers["last-event-id"]).toBe("e3");
      expect(get.headers.accept).toBe("text/event-stream");
      expect(resumedAt - brokeAt).toBeGreaterThanOrEqual(200); // retry: 200 beats the 20 ms backoff
      expect(tokens).toEqual(["e1", "e2", "e3", "e4", "e5"]);
    },
    T,
  );

  test(
    "reconnecting gives up after maxRetries: onerror, and the request ends with a local error",
    async () => {
      const server = serve((req) => {
        if (req.method === "GET") return new Response("busy", { status: 503 });
        const s = sse();
        s.send({ jsonrpc: "2.0", method: "n" }, "only-1");
        s.end();
        return s.response;
      });
      const { t, c } = await connect(server.url, { name: "down" });
      await t.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: {} });
      await c.until(() => c.messages.some((m) => m.id === 3), "the local error response");
      expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(fast.maxRetries);
      expect(c.errors.map((e) => e.message)).toEqual([
        "MCP server 'down': could not re-open the response stream after 3 attempts (last: HTTP 503)",
      ]);
      expect(c.messages.find((m) => m.id === 3).error.code).toBe(-32000);
    },
    T,
  );

  test(
    "SSE data that is not JSON is a recoverable frame error; an oversized event is dropped and reported",
    async () => {
      const server = serve(() => {
        const s = sse();
        s.write("data: {not json\n\n");
        s.write(`data: ${"x".repeat(300)}\n\n`);
        s.send(result(1, { fine: true }));
        s.end();
        return s.response;
      });
      const { c } = await connect(server.url, { maxFrameBytes: 200 });
      await c.request("tools/list");
      expect(c.frameErrors).toHaveLength(1);
      expect(c.frameErrors[0]!.recoverable).toBe(true);
      expect(c.frameErrors[0]!.error.code).toBe(-32700);
      expect(c.errors.map((e) => (e as AgentdError).code)).toEqual(["E_FRAME_TOO_LARGE"]);
    },
    T,
  );

  test(
    "a response over the frame limit fails its request at once, naming the server and the limit (no timeout)",
    async () => {
      const server = serve(() => {
        const s = sse();
        s.send(result(1, { big: "x".repeat(500) }), "e1");
        s.end();
        return s.response;
      });
      const { c } = await connect(server.url, { maxFrameBytes: 200 });
      const answer = (await c.request("tools/list")) as { error?: { message: string; data?: { code?: string } } };
      expect(answer.error?.data?.code).toBe("E_FRAME_TOO_LARGE");
      expect(answer.error?.message).toContain("200-character frame limit (maxFrameBytes)");
      expect(answer.error?.message).toContain("MCP server '");
      // Not resumed: the replay would drop the same event again.
      expect(server.requests.filter((r) => r.method === "GET")).toEqual([]);
    },
    T,
  );

  test(
    "send() with a resumptionToken resumes that request's stream by GET instead of POSTing",
    async () => {
      const server = serve(() => {
        const s = sse();
        s.send(result(11, { resumed: true }), "r2");
        s.end();
        return s.response;
      });
      const { t, c } = await connect(server.url);
      await t.send({ jsonrpc: "2.0", id: 11, method: "tools/call", params: {} }, { resumptionToken: "r1" });
      await c.until(() => c.messages.some((m) => m.id === 11), "the resumed response");
      expect(server.requests.map((r) => [r.method, r.headers["last-event-id"]])).toEqual([["GET", "r1"]]);
    },
    T,
  );

  test(
    "redirects: same-origin 307 is followed; another origin is refused",
    async () => {
      const other = serve(() => new Response("should never be reached"));
      const server = serve((req) => {
        if (req.path === "/mcp") return new Response(null, { status: 307, headers: { location: "/mcp/" } });
        if (req.path === "/away") return new Response(null, { status: 307, headers: { location: other.url } });
        return Response.json(result(bodyOf(req).id, { ok: true }));
      });
      const { c } = await connect(server.url);
      expect((await c.request("ping")).result).toEqual({ ok: true });
      expect(server.requests.map((r) => r.path)).toEqual(["/mcp", "/mcp/"]);
      const away = await connect(`${server.origin}/away`, { name: "hop", headers: { "X-Api-Key": "k-123456789" } });
      const err = await away.t.send({ jsonrpc: "2.0", id: 1, method: "ping" }).catch((e) => e);
      expect(err.message).toContain("redirected POST to another origin");
      expect(other.requests).toHaveLength(0);
    },
    T,
  );

  test(
    "close() aborts in-flight requests and pending reconnects; nothing runs afterwards",
    async () => {
      let calls = 0;
      const server = serve((req) => {
        if (isRequest(req, "hang")) return new Promise<Response>(() => {}); // never answers
        const s = sse();
        s.send({ jsonrpc: "2.0", method: "n" }, "h1");
        s.end(); // every stream breaks at once: reconnects keep coming
        return s.response;
      });
      const counting: typeof fetch = Object.assign((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
        calls++;
        return fetch(input, init);
      }, fetch);
      const { t, c } = await connect(server.url, {
        fetch: counting,
        reconnect: { initialDelayMs: 30, maxDelayMs: 30, growFactor: 1, maxRetries: 1000 },
      });
      await t.send({ jsonrpc: "2.0", id: 1, method: "stream" });
      const hung = t.send({ jsonrpc: "2.0", id: 2, method: "hang" });
      await c.until(() => server.requests.filter((r) => r.method === "GET").length >= 2, "a few reconnects");
      await t.close();
      await expect(hung).rejects.toMatchObject({ code: "E_CONNECTION_CLOSED" });
      const after = calls;
      // A leaked reconnect timer would fire within 30 ms; give it ten times that to show itself.
      await Bun.sleep(300);
      expect(calls).toBe(after);
      expect(c.closes).toBe(1);
    },
    T,
  );

  test("a URL with plain http:// to a non-loopback host is refused", () => {
    expect(() => new StreamableHttpClientTransport("http://tools.example/mcp")).toThrow("plain http:// is allowed only on loopback");
    expect(() => new StreamableHttpClientTransport("https://tools.example/mcp")).not.toThrow();
  });

  test(
    "telemetry names the server and carries no header values",
    async () => {
      const server = serve((req) => (req.method === "GET" ? new Response(null, { status: 405 }) : initialized(bodyOf(req).id)));
      const logger = memoryLogger();
      const { t, c } = await connect(server.url, { name: "quiet", logger, headers: { Authorization: "Bearer zzz-secret-zzz" } });
      await c.request("initialize", initializeParams());
      await t.openGetStream();
      expect(logger.records.some((r) => r.event === "mcp.http.get.unsupported" && r.server === "quiet")).toBe(true);
      expect(JSON.stringify(logger.records)).not.toContain("zzz-secret");
    },
    T,
  );
});
