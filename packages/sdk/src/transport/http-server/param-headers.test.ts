/**
 * Tool parameters mirrored into `Mcp-Param-*` headers (2026-07-28 Streamable HTTP, "Custom Headers from
 * Tool Parameters") and the tasks extension's `Mcp-Name: <taskId>`, over real loopback HTTP: our server
 * checks them (400 / -32020), the official v2 client's headers pass; our client sends them, to our server
 * and to the official v2 server (which checks them too); a tool with a broken annotation is not offered.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "../../mcp/index.ts";
import { McpClient } from "../../mcp/client/client.ts";
import { StreamableHttpClientTransport } from "../http-client/streamable-http-client.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";
import { startV2HttpServer } from "./__fixtures__/v2-http-server.ts";
import { paramHeaderMismatch, paramHeaders, paramHeaderValues } from "../../wire/param-headers.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f().catch(() => {});
});

const LOCATE = {
  name: "locate",
  inputSchema: {
    type: "object" as const,
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      shard: { type: "integer", "x-mcp-header": "Shard" },
      opts: { type: "object", properties: { dry: { type: "boolean", "x-mcp-header": "Dry" } } },
      query: { type: "string" },
    },
  },
};

async function serve(): Promise<{ mcp: McpServer; server: StreamableHttpServer }> {
  const mcp = new McpServer({ name: "params", version: "1.0.0" });
  mcp.tool(LOCATE, (args) => ({ content: [{ type: "text", text: `${String(args.query)}@${String(args.region)}` }] }));
  mcp.tool(
    {
      name: "broken",
      inputSchema: { type: "object", properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } } },
    },
    () => ({ content: [] }),
  );
  const server = await createStreamableHttpServer({
    onsession: async (t) => void (await mcp.connect(t)),
    checkHeaders: (message, headers) => mcp.paramHeaderMismatch(message, headers),
  });
  cleanup.push(
    () => server.close(),
    () => mcp.close(),
  );
  return { mcp, server };
}

const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

function post(url: URL, params: Record<string, unknown>, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "locate",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: META, name: "locate", ...params } }),
  });
}

describe("x-mcp-header annotations (pure rules)", () => {
  test("the spec's constraints: token names, unique ignoring case, primitive types, reached through properties only", () => {
    expect(paramHeaders(LOCATE.inputSchema)).toEqual({
      ok: true,
      headers: [
        { name: "Region", path: ["region"] },
        { name: "Shard", path: ["shard"] },
        { name: "Dry", path: ["opts", "dry"] },
      ],
    });
    const bad = (properties: Record<string, unknown>) => paramHeaders({ type: "object", properties });
    expect(bad({ a: { type: "number", "x-mcp-header": "A" } }).ok).toBe(false);
    expect(bad({ a: { type: "string", "x-mcp-header": "" } }).ok).toBe(false);
    expect(bad({ a: { type: "string", "x-mcp-header": "Has Space" } }).ok).toBe(false);
    expect(bad({ a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } }).ok).toBe(false);
    expect(bad({ a: { anyOf: [{ type: "string", "x-mcp-header": "A" }] } }).ok).toBe(false);
    expect(paramHeaders({ type: "object", "x-mcp-header": "Root" }).ok).toBe(false);
  });

  test("values: the spec's encoding table; null and absent values send nothing; integers compare numerically", () => {
    const declared = [
      { name: "Region", path: ["v"] },
      { name: "Flag", path: ["f"] },
    ];
    expect(paramHeaderValues(declared, { v: "us-west1", f: false })).toEqual({ "mcp-param-region": "us-west1", "mcp-param-flag": "false" });
    expect(paramHeaderValues(declared, { v: "Hello, 世界" })).toEqual({ "mcp-param-region": "=?base64?SGVsbG8sIOS4lueVjA==?=" });
    expect(paramHeaderValues(declared, { v: " padded " })).toEqual({ "mcp-param-region": "=?base64?IHBhZGRlZCA=?=" });
    expect(paramHeaderValues(declared, { v: "line1\nline2" })).toEqual({ "mcp-param-region": "=?base64?bGluZTEKbGluZTI=?=" });
    expect(paramHeaderValues(declared, { v: "=?base64?literal?=" })).toEqual({ "mcp-param-region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=" });
    expect(paramHeaderValues(declared, { v: null })).toEqual({});
    const get = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()] ?? null;
    expect(paramHeaderMismatch([{ name: "N", path: ["n"] }], { n: 42 }, get({ "mcp-param-n": "42.0" }))).toBeUndefined();
    expect(paramHeaderMismatch([{ name: "N", path: ["n"] }], { n: 42 }, get({ "mcp-param-n": "43" }))).toContain("does not match");
  });
});

describe("our server checks Mcp-Param-* (400, -32020)", () => {
  test("missing, different or stray headers are refused; matching, Base64 and numerically equal ones pass", async () => {
    const { server } = await serve();
    const args = { region: "us-west1", shard: 7, query: "q" };
    const cases: [Record<string, unknown>, Record<string, string>, number][] = [
      [{ arguments: args }, { "mcp-param-region": "us-west1", "mcp-param-shard": "7" }, 200],
      [
        { arguments: args },
        { "mcp-param-region": `=?base64?${Buffer.from("us-west1").toString("base64")}?=`, "mcp-param-shard": "7.0" },
        200,
      ],
      [{ arguments: args }, { "mcp-param-region": "us-west1" }, 400],
      [{ arguments: args }, { "mcp-param-region": "eu-north1", "mcp-param-shard": "7" }, 400],
      [{ arguments: { query: "q" } }, { "mcp-param-region": "us-west1" }, 400],
      [{ arguments: { query: "q", region: null } }, {}, 200],
    ];
    for (const [params, headers, status] of cases) {
      const r = await post(server.url, params, headers);
      expect({ headers, status: r.status }).toEqual({ headers, status });
      if (status === 400) expect(((await r.json()) as { error: { code: number } }).error.code).toBe(-32020);
      else await r.text();
    }
  });

  test("the official v2 client's mirrored parameters are accepted", async () => {
    const { server } = await serve();
    const client = new Client({ name: "v2", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    cleanup.push(() => client.close());
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    // The v2 client itself drops the tool whose annotation is broken.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["locate"]);
    const result = await client.callTool({
      name: "locate",
      arguments: { region: "ap-south1", shard: 3, opts: { dry: true }, query: "count" },
    });
    expect(result.content).toEqual([{ type: "text", text: "count@ap-south1" }]);
  });
});

describe("our client sends Mcp-Param-*", () => {
  test("to our server: the annotated tool is called, the broken one is not offered", async () => {
    const { server } = await serve();
    const client = new McpClient({ name: "ours", version: "0" }, { versionNegotiation: "auto" });
    await client.connect(new StreamableHttpClientTransport(server.url));
    cleanup.push(() => client.close());
    expect((await client.listTools()).map((t) => t.name)).toEqual(["locate"]);
    const result = await client.callTool("locate", { region: "Zürich", shard: 1, opts: { dry: false }, query: "q" });
    expect(result.content).toEqual([{ type: "text", text: "q@Zürich" }]);
    await expect(client.callTool("broken", {})).rejects.toMatchObject({ code: "E_CAPABILITY" });
  });

  test("after a -32020 it re-lists the tools and retries once; a second refusal is the caller's error", async () => {
    const mcp = new McpServer({ name: "params", version: "1.0.0" });
    mcp.tool(LOCATE, (args) => ({ content: [{ type: "text", text: String(args.query) }] }));
    const seen: string[] = [];
    let refusals = 1;
    const server = await createStreamableHttpServer({
      onsession: async (t) => void (await mcp.connect(t)),
      checkHeaders: (message) => {
        seen.push(message.method);
        if (message.method === "tools/call" && refusals-- > 0) return "the server's tool definition changed";
        return undefined;
      },
    });
    cleanup.push(
      () => server.close(),
      () => mcp.close(),
    );
    const client = new McpClient({ name: "ours", version: "0" }, { versionNegotiation: "auto" });
    await client.connect(new StreamableHttpClientTransport(server.url));
    cleanup.push(() => client.close());
    expect((await client.callTool("locate", { region: "r", query: "once" })).content).toEqual([{ type: "text", text: "once" }]);
    expect(seen.filter((m) => m === "tools/list" || m === "tools/call")).toEqual(["tools/list", "tools/call", "tools/list", "tools/call"]);
    refusals = 2;
    await expect(client.callTool("locate", { region: "r", query: "twice" })).rejects.toMatchObject({ code: -32020 });
  });

  test("to the official v2 server, which checks them", async () => {
    const v2 = startV2HttpServer();
    cleanup.push(() => v2.close());
    const client = new McpClient({ name: "ours", version: "0" }, { versionNegotiation: "auto" });
    await client.connect(new StreamableHttpClientTransport(v2.url));
    cleanup.push(() => client.close());
    expect(client.protocolVersion).toBe("2026-07-28");
    const result = await client.callTool("locate", { region: "eu west", shard: 12, query: "q" });
    expect(result).toMatchObject({ content: [{ type: "text", text: "q@eu west/12" }] });
    // The control: the v2 server refuses the same call without the headers, so the call above carried them.
    const bare = await post(v2.url, { arguments: { region: "eu west", shard: 12, query: "q" } }, {});
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as { error: { code: number } }).error.code).toBe(-32020);
  });
});
