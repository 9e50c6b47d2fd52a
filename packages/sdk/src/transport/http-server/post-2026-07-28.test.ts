/**
 * The same endpoint serves both eras: the official v2 client (`@modelcontextprotocol/client` 2.4, version
 * negotiation "auto") gets 2026-07-28 — per-request POSTs without a session, a `subscriptions/listen`
 * stream — and the 1.32.2 client keeps its `initialize` session at 2025-11-25. Raw POSTs check the
 * transport's refusals: mirrored headers (-32020), unserved versions (-32022), unknown methods (404).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "../../mcp/index.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";
import { decodeHeaderValue } from "./handle-post-2026-07-28.ts";
import { McpClient } from "../../mcp/client/client.ts";
import { StreamableHttpClientTransport } from "../http-client/streamable-http-client.ts";
import { encodeHeaderValue } from "../http-client/requests-2026-07-28.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
});

async function serve(): Promise<{ mcp: McpServer; server: StreamableHttpServer }> {
  const mcp = new McpServer({ name: "dual-era", version: "1.0.0" });
  mcp.tool({ name: "add", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } }, (args) => ({
    content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }],
  }));
  mcp.resource({ uri: "agent://status", name: "status" }, (uri) => ({ contents: [{ uri, text: "idle" }] }));
  const server = await createStreamableHttpServer({ onsession: async (t) => void (await mcp.connect(t)) });
  cleanup.push(
    () => server.close(),
    () => mcp.close(),
  );
  return { mcp, server };
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A raw stateless POST. */
function post(url: URL, body: Record<string, unknown>, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...body }),
  });
}

describe("the official v2 client over Streamable HTTP", () => {
  test("negotiates 2026-07-28: tools, reads, a listen stream carrying resource updates; no session is kept", async () => {
    const { mcp, server } = await serve();
    const transport = new StreamableHTTPClientTransport(server.url);
    const client = new Client({ name: "v2", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    cleanup.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add"]);
    expect((await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).content).toEqual([{ type: "text", text: "5" }]);

    const updated = new Promise<string>((resolve) =>
      client.setNotificationHandler("notifications/resources/updated", (n) => resolve(n.params.uri)),
    );
    const sub = await client.listen({ resourceSubscriptions: ["agent://status"] });
    expect(sub.honoredFilter).toEqual({ resourceSubscriptions: ["agent://status"] });
    expect(server.stats().sessions).toBe(1); // the listen request's, for as long as its stream is open
    await mcp.notifyResourceUpdated("agent://status");
    expect(await updated).toBe("agent://status");
    await sub.close();
    while (server.stats().sessions > 0) await new Promise((r) => setTimeout(r, 5));
  });

  test("the 1.32.2 client keeps initialize, a session and 2025-11-25 on the same endpoint", async () => {
    const { server } = await serve();
    const transport = new LegacyTransport(server.url);
    const client = new LegacyClient({ name: "v1", version: "1.32.2" });
    await client.connect(transport);
    cleanup.push(() => client.close());
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(transport.sessionId).toMatch(/^[0-9a-f]{48}$/);
    expect((await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).content).toEqual([{ type: "text", text: "2" }]);
  });
});

describe("our client with era probing over Streamable HTTP", () => {
  test("negotiates 2026-07-28 with our server: mirrored headers accepted, a listen subscription carries updates", async () => {
    const { mcp, server } = await serve();
    const client = new McpClient({ name: "ours", version: "0" }, { versionNegotiation: "auto" });
    await client.connect(new StreamableHttpClientTransport(server.url));
    cleanup.push(() => client.close());
    expect(client.protocolVersion).toBe("2026-07-28");
    expect((await client.callTool("add", { a: 20, b: 22 })).content).toEqual([{ type: "text", text: "42" }]);
    await client.subscribe("agent://status");
    const updated = new Promise<string>((resolve) => client.on("resourceUpdated", (e) => resolve(e.uri)));
    await mcp.notifyResourceUpdated("agent://status");
    expect(await updated).toBe("agent://status");
    expect((await client.readResource("agent://status")).contents[0]).toMatchObject({ text: "idle" });
  });
});

describe("stateless POST refusals", () => {
  test("mirrored headers must match the body: 400 with -32020", async () => {
    const { server } = await serve();
    const call = { id: 1, method: "tools/call", params: { _meta: META, name: "add", arguments: { a: 1, b: 2 } } };
    const noMethod = await post(server.url, call, { "mcp-name": "add" });
    expect(noMethod.status).toBe(400);
    expect((await noMethod.json()).error).toMatchObject({ code: -32020 });
    const wrongName = await post(server.url, call, { "mcp-method": "tools/call", "mcp-name": "sub" });
    expect(((await wrongName.json()) as any).error.code).toBe(-32020);
    const wrongVersion = await post(
      server.url,
      { ...call, params: { ...call.params, _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } } },
      { "mcp-method": "tools/call", "mcp-name": "add" },
    );
    expect(((await wrongVersion.json()) as any).error.code).toBe(-32020);
    // Base64 sentinel names are decoded before comparing.
    const encoded = await post(server.url, call, {
      "mcp-method": "tools/call",
      "mcp-name": `=?base64?${Buffer.from("add").toString("base64")}?=`,
    });
    expect(encoded.status).toBe(200);
    expect(encoded.headers.get("mcp-session-id")).toBeNull();
    expect(await encoded.text()).toContain('"resultType":"complete"');
  });

  test("a stateless stream carries no SSE event ids and no retry (2026-07-28 removed resumability)", async () => {
    const { server } = await serve();
    const r = await post(
      server.url,
      { id: 1, method: "tools/call", params: { _meta: META, name: "add", arguments: { a: 1, b: 2 } } },
      { "mcp-method": "tools/call", "mcp-name": "add" },
    );
    const text = await r.text();
    expect(text).toContain('"resultType":"complete"');
    expect(text.split("\n").filter((line) => line.startsWith("id:") || line.startsWith("retry:"))).toEqual([]);
  });

  test("a version not served is 400 with -32022 listing ours; an unknown method is 404 with -32601", async () => {
    const { server } = await serve();
    const r = await post(
      server.url,
      { id: 1, method: "tools/list", params: { _meta: META } },
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
    );
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error).toMatchObject({
      code: -32022,
      data: { requested: "2099-01-01", supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] },
    });
    const unknown = await post(server.url, { id: 2, method: "ping", params: { _meta: META } }, { "mcp-method": "ping" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe(-32601);
    expect(server.stats().sessions).toBe(0);
  });

  test("header values: the Base64 sentinel is decoded, anything else is taken as is; encoding round-trips", () => {
    expect(decodeHeaderValue("=?base64?SGVsbG8sIOS4lueVjA==?=")).toBe("Hello, 世界");
    expect(decodeHeaderValue("us-west1")).toBe("us-west1");
    // The transport spec's own examples.
    expect(encodeHeaderValue("us-west1")).toBe("us-west1");
    expect(encodeHeaderValue("Hello, 世界")).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect(encodeHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(encodeHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=");
    expect(encodeHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    for (const v of ["file:///a b.md", "naïve", "x"]) expect(decodeHeaderValue(encodeHeaderValue(v))).toBe(v);
  });
});
