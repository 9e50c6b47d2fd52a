/**
 * The client transport against the official SDK server (McpServer + WebStandardStreamableHTTPServerTransport
 * under Bun.serve on 127.0.0.1), driven with raw JSON-RPC messages.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AgentdError } from "../../wire/errors.ts";
import { collect, initializeParams, type Collected } from "./__fixtures__/collect.ts";
import { startCutProxy, type CutProxy } from "./__fixtures__/cut-proxy.ts";
import { startSdkServer, type SdkServer } from "./__fixtures__/sdk-server.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";
import { McpClient } from "../../mcp/client/client.ts";

const fast = { initialDelayMs: 50, maxDelayMs: 400, growFactor: 2, maxRetries: 20 };

let server: SdkServer | undefined;
let proxy: CutProxy | undefined;
let client: StreamableHttpClientTransport | undefined;
afterEach(async () => {
  await client?.close();
  await proxy?.stop();
  await server?.stop();
  client = proxy = server = undefined;
});

/** initialize + notifications/initialized, as the MCP client layer would. */
async function connect(t: StreamableHttpClientTransport, c: Collected): Promise<void> {
  await t.start();
  await initialize(t, c);
}

async function initialize(t: StreamableHttpClientTransport, c: Collected): Promise<void> {
  const init = await c.request("initialize", initializeParams());
  expect(init.result.protocolVersion).toBe("2025-11-25");
  t.setProtocolVersion(init.result.protocolVersion);
  await t.send({ jsonrpc: "2.0", method: "notifications/initialized" });
}

const progressValues = (c: Collected) => c.notes("notifications/progress").map((n) => n.params.progress);

describe("StreamableHttpClientTransport ⇄ official SDK server", () => {
  test("initialize, session and version headers, GET stream, tools/list and tools/call over SSE", async () => {
    server = await startSdkServer();
    client = new StreamableHttpClientTransport(server.url, { name: "fixture" });
    const c = collect(client);
    await connect(client, c);
    expect(client.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    await c.until(() => client!.getStreamState === "open", "the GET stream to open");

    const list = await c.request("tools/list");
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain("echo");
    const echo = await c.request("tools/call", { name: "echo", arguments: { text: "héllo 😀" } });
    expect(echo.result.content).toEqual([{ type: "text", text: "héllo 😀" }]);

    const [first, ...later] = server.requests;
    expect(first).toMatchObject({ method: "POST", session: null, version: null });
    for (const r of later) expect(r).toMatchObject({ session: client.sessionId, version: "2025-11-25" });
    expect(later.some((r) => r.method === "GET")).toBe(true);
    expect(c.errors).toEqual([]);
  }, 30_000);

  test("JSON response mode: the answer comes as one application/json body", async () => {
    server = await startSdkServer({ enableJsonResponse: true });
    client = new StreamableHttpClientTransport(server.url, { openGetStream: false });
    const c = collect(client);
    await connect(client, c);
    const echo = await c.request("tools/call", { name: "echo", arguments: { text: "json" } });
    expect(echo.result.content[0].text).toBe("json");
    expect(client.getStreamState).toBe("off");
  }, 30_000);

  test("a response stream cut mid-way resumes by GET with Last-Event-ID: every message exactly once", async () => {
    server = await startSdkServer();
    proxy = await startCutProxy(server.url);
    client = new StreamableHttpClientTransport(proxy.url, { reconnect: fast, openGetStream: false });
    const c = collect(client);
    await connect(client, c);

    await client.send({
      jsonrpc: "2.0",
      id: "steps-1",
      method: "tools/call",
      params: { name: "steps", arguments: { first: 3, then: 4 }, _meta: { progressToken: "p" } },
    });
    await c.until(() => progressValues(c).length === 3, "the first 3 progress notifications");
    expect(proxy.cut("POST")).toBe(1);
    server.release();

    await c.until(() => c.messages.some((m) => m.id === "steps-1"), "the tools/call response after resuming");
    expect(progressValues(c)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(c.messages.filter((m) => m.id === "steps-1")).toHaveLength(1);
    expect(c.messages.find((m) => m.id === "steps-1").result.content[0].text).toBe("done after 7");
    const resumes = proxy.log.filter((r) => r.method === "GET" && r.lastEventId !== null);
    expect(resumes.length).toBeGreaterThanOrEqual(1);
    expect(resumes[0]!.lastEventId).toContain("#"); // an id of our event store
    expect(c.errors).toEqual([]);
  }, 30_000);

  test("a server that closes its own response stream (polling) is followed after its retry value", async () => {
    server = await startSdkServer({ retryInterval: 150 });
    client = new StreamableHttpClientTransport(server.url, { reconnect: { ...fast, initialDelayMs: 60_000 }, openGetStream: false });
    const c = collect(client);
    await connect(client, c);
    const started = performance.now();
    const res = await c.request("tools/call", { name: "close-stream", arguments: { count: 2 }, _meta: { progressToken: 1 } });
    // The backoff (60 s) was never used: the server's retry (150 ms) was respected.
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(res.result.content[0].text).toBe("done after 4");
    expect(progressValues(c)).toEqual([1, 2, 3, 4]);
    expect(server.requests.some((r) => r.method === "GET" && r.lastEventId !== null)).toBe(true);
  }, 30_000);

  test("the GET stream survives a cut and replays what was sent while it was away", async () => {
    server = await startSdkServer();
    proxy = await startCutProxy(server.url);
    client = new StreamableHttpClientTransport(proxy.url, { reconnect: fast });
    const c = collect(client);
    await connect(client, c);
    await c.until(() => client!.getStreamState === "open", "the GET stream to open");
    const logged = () => c.notes("notifications/message").map((n) => n.params.data);

    await c.request("tools/call", { name: "broadcast", arguments: { count: 2, tag: "a" } });
    await c.until(() => logged().length === 2, "2 pushed messages");
    expect(proxy.cut("GET")).toBe(1);
    await c.request("tools/call", { name: "broadcast", arguments: { count: 3, tag: "b" } });
    await c.until(() => logged().length === 5, "the 3 messages pushed while the stream was cut");
    expect(logged()).toEqual(["a-0", "a-1", "b-0", "b-1", "b-2"]);
    expect(proxy.log.some((r) => r.method === "GET" && r.lastEventId !== null)).toBe(true);
    await c.until(() => client!.getStreamState === "open", "the GET stream to be open again");
    expect(c.errors).toEqual([]);
  }, 30_000);

  test("a forgotten session: E_SESSION_EXPIRED via onerror and send(), until a new initialize", async () => {
    server = await startSdkServer();
    client = new StreamableHttpClientTransport(server.url, { reconnect: fast, name: "fixture" });
    const c = collect(client);
    await connect(client, c);
    await c.until(() => client!.getStreamState === "open", "the GET stream to open");
    const oldSession = client.sessionId;

    await server.forgetSessions(); // closes the GET stream too; its reconnect meets 404
    const failed = await client.send({ jsonrpc: "2.0", id: 99, method: "tools/list" }).catch((e) => e);
    expect(AgentdError.isInstance(failed) && failed.code).toBe("E_SESSION_EXPIRED");
    expect(failed.message).toContain("'fixture'");
    expect(client.sessionId).toBeUndefined();
    await c.until(() => c.errors.some((e) => AgentdError.isInstance(e) && e.code === "E_SESSION_EXPIRED"), "onerror E_SESSION_EXPIRED");
    // Reported once, whichever request (POST or the GET reconnect) met the 404 first.
    expect(c.errors.filter((e) => AgentdError.isInstance(e) && e.code === "E_SESSION_EXPIRED")).toHaveLength(1);
    // Later sends fail at once, without a request, until the client layer initializes again.
    const before = server.requests.length;
    await expect(client.send({ jsonrpc: "2.0", method: "notifications/progress" })).rejects.toMatchObject({ code: "E_SESSION_EXPIRED" });
    expect(server.requests.length).toBe(before);

    await initialize(client, c);
    expect(client.sessionId).toBeDefined();
    expect(client.sessionId).not.toBe(oldSession);
    await c.until(() => client!.getStreamState === "open", "the GET stream of the new session");
    const echo = await c.request("tools/call", { name: "echo", arguments: { text: "again" } });
    expect(echo.result.content[0].text).toBe("again");
  }, 30_000);

  test("close() sends DELETE with the session id and the server ends the session", async () => {
    server = await startSdkServer();
    client = new StreamableHttpClientTransport(server.url);
    const c = collect(client);
    await connect(client, c);
    const sid = client.sessionId!;
    expect(server.sessions.has(sid)).toBe(true);
    await client.close();
    expect(c.closes).toBe(1);
    expect(server.requests.at(-1)).toMatchObject({ method: "DELETE", session: sid });
    expect(server.sessions.has(sid)).toBe(false);
    await expect(client.send({ jsonrpc: "2.0", method: "x" })).rejects.toMatchObject({ code: "E_CONNECTION_CLOSED" });
  }, 30_000);
});

describe("era probe against the official 1.32.2 SDK server over HTTP", () => {
  test("our client's server/discover probe is refused (HTTP 400, no modern error): it falls back to initialize and 2025-11-25", async () => {
    server = await startSdkServer();
    const mcp = new McpClient({ name: "probe", version: "0" }, { versionNegotiation: "auto" });
    client = new StreamableHttpClientTransport(server.url, { name: "fixture" });
    await mcp.connect(client);
    expect(mcp.protocolVersion).toBe("2025-11-25");
    expect(mcp.stateless).toBe(false);
    expect((await mcp.listTools()).map((t) => t.name)).toContain("echo");
    // The probe went out as a stateless request would: its headers mirrored, no session.
    expect(server.requests[0]).toMatchObject({ method: "POST", session: null, version: "2026-07-28" });
    await mcp.close();
  }, 30_000);
});
