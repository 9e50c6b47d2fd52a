/**
 * Our client with `versionNegotiation: "auto"`: per peer, a `server/discover` probe decides the era.
 * - the official v2 server (`@modelcontextprotocol/server` 2.4, a real stdio child): 2026-07-28 — tools,
 *   resources, a listen subscription whose update is read after, an input-required round trip answered
 *   by the elicitation policy;
 * - our own dual-era server: 2026-07-28, subscriptions through listen, caching hints honoured;
 * - a handshake-only peer (the 1.32.2 SDK's server over a memory pair): the probe fails, 2025-11-25.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Server as LegacySdkServer } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { MemoryTransport } from "../../transport/memory.ts";
import { StdioChildTransport } from "../../transport/stdio-child.ts";
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { McpClient, type McpClientOptions } from "./client.ts";
import { StreamableHttpClientTransport } from "../../transport/http-client/streamable-http-client.ts";
import { McpServer } from "../server/server.ts";
import { NEEDS_SHARED, sharedSpecsAvailable, validateOfficial } from "@agentd/test-support/oracle";

/** What our client sent in the stateless session of the test below, checked against the official schema after. */
let statelessSent: JsonRpcMessage[] = [];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => {});
});

const V2_SERVER = join(import.meta.dir, "..", "__fixtures__", "v2-sdk-server.ts");

async function client(transport: MemoryTransport | StdioChildTransport, options: McpClientOptions = {}) {
  const c = new McpClient({ name: "agentd-test", version: "0" }, { versionNegotiation: "auto", probeTimeoutMs: 5_000, ...options });
  closers.push(() => c.close());
  await c.connect(transport);
  return c;
}

/** Wait for the next `resourceUpdated` of `uri` on `c`. */
const nextUpdate = (c: McpClient, uri: string) =>
  new Promise<void>((resolve) => {
    const off = c.on("resourceUpdated", (e) => {
      if (e.uri !== uri) return;
      off();
      resolve();
    });
  });

describe("against the official v2 server (stdio)", () => {
  test("negotiates 2026-07-28: tools, a read, a listen subscription driving a re-read, an input-required round trip", async () => {
    const asked: Record<string, unknown>[] = [];
    const transport = new StdioChildTransport({ name: "v2", command: process.execPath, args: [V2_SERVER], cwd: import.meta.dir });
    const c = await client(transport, {
      capabilities: {
        elicitation: async (params) => {
          asked.push(params as Record<string, unknown>);
          return { action: "accept", content: { yes: true } };
        },
      },
    });
    expect(c.protocolVersion).toBe("2026-07-28");
    expect(c.stateless).toBe(true);
    expect(c.serverInfo).toEqual({ name: "v2-sdk-server", version: "2.4.0" });

    expect((await c.listTools()).map((t) => t.name).sort()).toEqual(["add", "bump", "confirm", "crash"]);
    expect((await c.callTool("add", { a: 2, b: 40 })).content).toEqual([{ type: "text", text: "42" }]);

    // The reactive core's order: subscribe, read right after, then read again on each update.
    await c.subscribe("note://a");
    expect((await c.readResource("note://a")).contents[0]).toMatchObject({ text: "v1" });
    const updated = nextUpdate(c, "note://a");
    await c.callTool("bump");
    await updated;
    expect((await c.readResource("note://a")).contents[0]).toMatchObject({ text: "v2" });

    const confirmed = await c.callTool("confirm");
    expect(confirmed.content).toEqual([{ type: "text", text: 'confirmed {"yes":true} after round-1' }]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: "Proceed?" });
  }, 30_000);

  test("without an elicitation policy no elicitation is declared per request, so the server asks for none", async () => {
    const transport = new StdioChildTransport({ name: "v2", command: process.execPath, args: [V2_SERVER], cwd: import.meta.dir });
    const c = await client(transport);
    await expect(c.callTool("confirm")).rejects.toThrow(/do not declare the required capability/);
  }, 30_000);
});

describe("against our own dual-era server", () => {
  function pair(server: McpServer) {
    const [a, b] = MemoryTransport.createPair();
    const sent: JsonRpcMessage[] = [];
    const send = a.send.bind(a);
    a.send = (m, o) => {
      sent.push(m);
      return send(m, o);
    };
    return { a, connected: server.connect(b), sent };
  }

  test("2026-07-28 with listen-based subscriptions, a per-request envelope and no handshake", async () => {
    const server = new McpServer({ name: "ours", version: "1" }, { capabilities: { serverNotifications: true } });
    closers.push(() => server.close());
    let text = "one";
    server.resource({ uri: "agent://status", name: "status" }, (uri) => ({ contents: [{ uri, text }] }));
    server.tool({ name: "t" }, () => ({ content: [] }));
    const { a, connected, sent } = pair(server);
    await connected;
    const c = await client(a);
    expect(c.protocolVersion).toBe("2026-07-28");
    await c.subscribe("agent://status");
    const updated = nextUpdate(c, "agent://status");
    text = "two";
    await server.notifyResourceUpdated("agent://status");
    await updated;
    expect((await c.readResource("agent://status")).contents[0]).toMatchObject({ text: "two" });
    await c.unsubscribe("agent://status");
    expect(c.subscriptions()).toEqual([]);
    await c.ping();
    const methods = sent.map((m) => (m as { method?: string }).method);
    expect(methods).not.toContain("initialize");
    expect(methods).not.toContain("resources/subscribe");
    expect(methods.filter((m) => m === "subscriptions/listen").length).toBeGreaterThanOrEqual(2);
    const requests = sent.filter((m) => "id" in m && "method" in m) as { params?: { _meta?: Record<string, unknown> } }[];
    expect(requests.every((r) => r.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28")).toBe(true);
    await c.callTool("t", {}, { onprogress: () => {} });
    await c.setLoggingLevel("info");
    await c.listResources();
    const last = sent.at(-1) as { params?: { _meta?: Record<string, unknown> } };
    expect(last.params?._meta?.["io.modelcontextprotocol/logLevel"]).toBe("info");
    expect(sent.map((m) => (m as { method?: string }).method)).not.toContain("logging/setLevel");
    statelessSent = sent;
  });

  test.skipIf(!sharedSpecsAvailable())(
    `${NEEDS_SHARED} everything our client sent there validates against the official 2026-07-28 schema`,
    () => {
      expect(statelessSent.length).toBeGreaterThan(6);
      const wrong = statelessSent.flatMap((m) => {
        const r = validateOfficial("2026-07-28", m);
        return r.ok ? [] : [`${JSON.stringify(m).slice(0, 160)}: ${r.errors}`];
      });
      expect(wrong).toEqual([]);
    },
  );

  test("an input round trip between our own ends: the server's sendRequest becomes an input request our policy answers", async () => {
    const server = new McpServer({ name: "ours", version: "1" });
    closers.push(() => server.close());
    server.tool({ name: "ask" }, async (_args, ctx) => {
      const a = await ctx.sendRequest<{ content?: { name?: string } }>("elicitation/create", {
        mode: "form",
        message: "Name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } },
      });
      return { content: [{ type: "text", text: `hello ${a.content?.name}` }] };
    });
    const { a, connected, sent } = pair(server);
    await connected;
    const c = await client(a, { capabilities: { elicitation: async () => ({ action: "accept", content: { name: "Ada" } }) } });
    expect((await c.callTool("ask")).content).toEqual([{ type: "text", text: "hello Ada" }]);
    const calls = sent.filter((m) => (m as { method?: string }).method === "tools/call") as {
      id: number;
      params: Record<string, unknown>;
    }[];
    expect(calls).toHaveLength(2);
    expect(calls[1]!.params.inputResponses).toEqual({ "elicitation/create#0": { action: "accept", content: { name: "Ada" } } });
    expect(calls[1]!.id).not.toBe(calls[0]!.id);
  });

  test("a positive ttlMs lets a read be served from the cache until an update invalidates it", async () => {
    const server = new McpServer({ name: "ours", version: "1" });
    closers.push(() => server.close());
    let reads = 0;
    server.resource({ uri: "agent://cfg", name: "cfg" }, (uri) => ({
      contents: [{ uri, text: `read ${++reads}` }],
      ttlMs: 60_000,
      cacheScope: "private",
    }));
    const { a, connected } = pair(server);
    await connected;
    const c = await client(a);
    await c.subscribe("agent://cfg");
    expect((await c.readResource("agent://cfg")).contents[0]).toMatchObject({ text: "read 1" });
    expect((await c.readResource("agent://cfg")).contents[0]).toMatchObject({ text: "read 1" });
    expect(reads).toBe(1);
    const updated = nextUpdate(c, "agent://cfg");
    await server.notifyResourceUpdated("agent://cfg");
    await updated;
    expect((await c.readResource("agent://cfg")).contents[0]).toMatchObject({ text: "read 2" });
  });
});

describe("against a handshake-only peer", () => {
  test("the probe is refused, the client falls back to initialize and 2025-11-25", async () => {
    const legacy = new LegacySdkServer({ name: "sdk-1.32.2", version: "1.32.2" }, { capabilities: { tools: {} } });
    legacy.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "old", inputSchema: { type: "object" } }] }));
    const [a, b] = MemoryTransport.createPair();
    // The 1.32.2 server speaks to a transport with its own shape: adapt ours (start/send/close and callbacks).
    await legacy.connect(b as never);
    closers.push(() => legacy.close());
    const c = await client(a);
    expect(c.protocolVersion).toBe("2025-11-25");
    expect(c.stateless).toBe(false);
    expect((await c.listTools()).map((t) => t.name)).toEqual(["old"]);
  });
});

const STATELESS_ONLY = join(import.meta.dir, "..", "__fixtures__", "stateless-only-server.ts");

/** Start the stateless-only server over HTTP; resolves with its URL once it printed it. */
async function statelessOnlyHttp(): Promise<URL> {
  const proc = Bun.spawn([process.execPath, STATELESS_ONLY, "--http"], { stdout: "pipe", stderr: "ignore" });
  closers.push(async () => {
    proc.kill("SIGKILL");
    await proc.exited;
  });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the stateless-only server exited before printing its URL");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return new URL(text.trim());
}

describe("a server that refuses initialize with -32022 and lists only 2026-07-28 (as Mastra's MCPServer 2.0 does)", () => {
  const legacy = (transport: StdioChildTransport | StreamableHttpClientTransport) => {
    const c = new McpClient({ name: "agentd-test", version: "0" }, { probeTimeoutMs: 5_000 });
    closers.push(() => c.close());
    return c.connect(transport).then(() => c);
  };

  test("over stdio, the default negotiation connects with 2026-07-28: the refusal was the probe", async () => {
    const c = await legacy(
      new StdioChildTransport({ name: "only-2026", command: process.execPath, args: [STATELESS_ONLY], cwd: import.meta.dir }),
    );
    expect(c.protocolVersion).toBe("2026-07-28");
    expect((await c.listTools()).map((t) => t.name)).toEqual(["add"]);
    expect((await c.callTool("add", { a: 2, b: 5 })).content).toEqual([{ type: "text", text: "7" }]);
  });

  test("over Streamable HTTP, the same", async () => {
    const url = await statelessOnlyHttp();
    const c = await legacy(new StreamableHttpClientTransport(url, { name: "only-2026" }));
    expect(c.protocolVersion).toBe("2026-07-28");
    expect((await c.callTool("add", { a: 1, b: 1 })).content).toEqual([{ type: "text", text: "2" }]);
  });

  test("with no revision in common, the failure names both lists", async () => {
    const transport = new StdioChildTransport({
      name: "only-2099",
      command: process.execPath,
      args: [STATELESS_ONLY],
      cwd: import.meta.dir,
      env: { ...process.env, SUPPORTED: "2099-01-01" } as Record<string, string>,
    });
    const error = await legacy(transport).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain("speaks MCP 2099-01-01");
    expect(error?.message).toContain("2025-11-25, 2025-06-18, 2025-03-26 with initialize and 2026-07-28 per request");
  });
});
