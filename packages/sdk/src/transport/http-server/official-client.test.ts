/**
 * Interoperability: the official `@modelcontextprotocol/sdk` client over its Streamable HTTP transport,
 * against this server fronting the in-test responder, and fronting our own `McpServer`.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema as ToolListChanged } from "@modelcontextprotocol/sdk/types.js";
import { McpServer } from "../../mcp/index.ts";
import { createResponder } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function connect(responseMode: "sse" | "json") {
  const responder = createResponder();
  const server: StreamableHttpServer = await createStreamableHttpServer({ onsession: responder.onsession, responseMode });
  cleanup.push(() => server.close());
  const transport = new StreamableHTTPClientTransport(server.url);
  const client = new Client({ name: "official-client-test", version: "0.0.0" });
  await client.connect(transport);
  cleanup.push(() => client.close());
  return { client, transport, responder, server };
}

describe.each(["sse", "json"] as const)("official SDK client, %s responses", (mode) => {
  test("connects, lists tools, calls one, receives a notification, terminates the session", async () => {
    const { client, transport, responder, server } = await connect(mode);
    expect(client.getServerVersion()?.name).toBe("test-responder");
    expect(transport.sessionId).toMatch(/^[0-9a-f]{48}$/);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo", "slow", "chatty"]);
    const result = await client.callTool({ name: "echo", arguments: { text: "over http" } });
    expect(result.content).toEqual([{ type: "text", text: "over http" }]);

    // Server-initiated: the client opened the standalone GET stream after `initialized`.
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChanged, () => resolve()));
    while (server.stats().streams < 1) await new Promise((r) => setImmediate(r));
    await responder.sessions[0]!.transport.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await changed;

    await transport.terminateSession();
    await responder.sessions[0]!.closed;
    expect(server.stats().sessions).toBe(0);
  });
});

describe("official SDK client ⇄ our McpServer over this transport", () => {
  test("lists and calls a tool registered on McpServer", async () => {
    const mcp = new McpServer({ name: "agentd-test", version: "0.0.0" });
    mcp.tool(
      {
        name: "add",
        description: "Add two numbers",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      },
      (args) => ({ content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] }),
    );
    const server = await createStreamableHttpServer({ onsession: async (t) => void (await mcp.connect(t)) });
    cleanup.push(() => server.close());
    const client = new Client({ name: "official-client-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(server.url));
    cleanup.push(() => client.close());
    expect(client.getServerVersion()?.name).toBe("agentd-test");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add"]);
    expect((await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })).content).toEqual([{ type: "text", text: "42" }]);
  });
});

describe("official SDK client: requests it times out", () => {
  test("free their streams; each ended stream is resumed once, answered 204, and never polled again", async () => {
    const mcp = new McpServer({ name: "agentd-test", version: "0.0.0" });
    mcp.tool(
      { name: "slow", inputSchema: { type: "object" } },
      (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    );
    mcp.tool({ name: "fast", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "ok" }] }));
    const server = await createStreamableHttpServer({
      limits: { maxStreamsPerSession: 4, retryMs: 50 },
      onsession: async (t) => void (await mcp.connect(t)),
    });
    cleanup.push(() => server.close());
    // The SDK resumes a POST stream that ended without a response by GET with Last-Event-ID.
    const resumes: { id: string; status: number }[] = [];
    const watching: typeof fetch = Object.assign(
      async (input: string | URL | Request, init?: RequestInit) => {
        const res = await fetch(input, init);
        const id = new Headers(init?.headers).get("last-event-id");
        if (init?.method === "GET" && id !== null) resumes.push({ id, status: res.status });
        return res;
      },
      { preconnect: fetch.preconnect },
    );
    const client = new Client({ name: "official-client-test", version: "0.0.0" });
    await client.connect(new StreamableHTTPClientTransport(server.url, { fetch: watching }));
    cleanup.push(() => client.close());

    const calls = 8; // twice maxStreamsPerSession
    for (let i = 0; i < calls; i++)
      await expect(client.callTool({ name: "slow", arguments: {} }, undefined, { timeout: 100 })).rejects.toThrow(/timed out/i);
    expect((await client.callTool({ name: "fast", arguments: {} })).content).toEqual([{ type: "text", text: "ok" }]);
    const deadline = performance.now() + 20_000;
    while (resumes.length < calls || server.stats().streams > 1) {
      if (performance.now() > deadline) throw new Error(`resumes ${JSON.stringify(resumes)}, streams ${server.stats().streams}`);
      await Bun.sleep(20);
    }
    expect(resumes.map((r) => r.status)).toEqual(Array(calls).fill(204));
    expect(new Set(resumes.map((r) => r.id)).size).toBe(calls);
  }, 60_000);
});
