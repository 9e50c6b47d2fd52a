/**
 * A tool that answers at once is answered at once: the server's request path (the protocol's inbound
 * requests, the handler table, `tools/call`) adds no promise and no turn to a synchronous result, so a quick
 * answer leaves at the turn's first microtask checkpoint. Over real HTTP the bytes must be exactly those
 * of the same tools answering through promises: JSON and SSE response modes, errors, tool errors,
 * notifications sent before the result, a notification POST and a 2025-03-26 batch.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { post } from "@agentd/test-support/raw-http";
import type { Transport } from "../../transport/types.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../../transport/index.ts";
import { McpError } from "../../wire/errors.ts";
import type { CallToolResult } from "../../wire/index.ts";
import type { ToolDefinition } from "./registry.ts";
import type { ServerContext } from "./session.ts";
import { McpServer } from "./server.ts";

type Answer = (args: Record<string, unknown>, ctx: ServerContext) => CallToolResult;

/** The tools, each written once as what it does before answering and what it answers. */
const TOOLS: Record<string, { answer: Answer; outputSchema?: ToolDefinition["outputSchema"] }> = {
  echo: { answer: (args) => ({ content: [{ type: "text", text: String(args.text) }] }) },
  fails: {
    answer: () => {
      throw new Error("the tool failed");
    },
  },
  refuses: {
    answer: () => {
      throw new McpError(-32010, "refused by the tool", { why: "test" });
    },
  },
  chatty: {
    answer: (args, ctx) => {
      void ctx.sendNotification("notifications/message", { level: "info", data: "before the answer" });
      void ctx.sendProgress(1, 2, "half way");
      return { content: [{ type: "text", text: String(args.text) }] };
    },
  },
  structured: {
    outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    answer: (args) => ({ content: [{ type: "text", text: "n" }], structuredContent: { n: args.text === "bad" ? "x" : 1 } }),
  },
};

/** A server whose tools answer synchronously, or (`promised`) through a resolved or rejected promise. */
function mcpServer(promised: boolean): McpServer {
  const mcp = new McpServer({ name: "sync-answer", version: "1.0.0" });
  for (const [name, { answer, outputSchema }] of Object.entries(TOOLS))
    mcp.tool(
      {
        name,
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        ...(outputSchema ? { outputSchema } : {}),
      },
      promised ? async (args, ctx) => answer(args, ctx) : (args, ctx) => answer(args, ctx),
    );
  return mcp;
}

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const call = (id: number, name: string, text?: string, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: text === undefined ? {} : { text }, ...(meta ? { _meta: meta } : {}) },
});

/** Everything of an answer that must not differ: status, content type and body bytes. */
async function exchange(url: URL, body: unknown, headers: Record<string, string>): Promise<string> {
  const r = await post(url, body, { ...HEADERS, ...headers });
  return `${r.status} ${r.headers.get("content-type")}\n${await r.text()}`;
}

/** The same conversation on a fresh server: every answer, in order. */
async function conversation(mode: "json" | "sse", promised: boolean, revision: string): Promise<string[]> {
  const mcp = mcpServer(promised);
  const server = await createStreamableHttpServer({ responseMode: mode, onsession: async (t) => void (await mcp.connect(t)) });
  servers.push(server);
  const init = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: "sync-answer", version: "0" } },
  };
  const opened = await post(server.url, init, HEADERS);
  const sessionId = opened.headers.get("mcp-session-id") ?? "";
  const first = await opened.text();
  const h = { "mcp-session-id": sessionId, "mcp-protocol-version": revision };
  const answers = [first];
  answers.push(await exchange(server.url, { jsonrpc: "2.0", method: "notifications/initialized" }, h));
  answers.push(await exchange(server.url, call(1, "echo", "hello"), h));
  answers.push(await exchange(server.url, call(2, "nosuch", "hello"), h));
  answers.push(await exchange(server.url, call(3, "echo"), h));
  answers.push(await exchange(server.url, call(4, "fails", "x"), h));
  answers.push(await exchange(server.url, call(5, "refuses", "x"), h));
  answers.push(await exchange(server.url, call(6, "chatty", "x", { progressToken: "p6" }), h));
  answers.push(await exchange(server.url, call(7, "structured", "ok"), h));
  answers.push(await exchange(server.url, call(8, "structured", "bad"), h));
  answers.push(await exchange(server.url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } }, h));
  if (revision === "2025-03-26") answers.push(await exchange(server.url, [call(9, "echo", "a"), call(10, "fails", "b")], h));
  return answers;
}

describe("a synchronous tool result over Streamable HTTP", () => {
  for (const mode of ["json", "sse"] as const)
    for (const revision of ["2025-11-25", "2025-03-26"])
      test(`${mode} responses, ${revision}: the same bytes as the same tools answering through promises`, async () => {
        const now = await conversation(mode, false, revision);
        const promised = await conversation(mode, true, revision);
        expect(now).toEqual(promised);
        // Not vacuous: answers, a protocol error, tool errors and (in SSE) the notifications before a result.
        expect(now.join("\n")).toContain('"text":"hello"');
        expect(now.join("\n")).toContain("Unknown tool: nosuch");
        expect(now.join("\n")).toContain("the tool failed");
        expect(now.join("\n")).toContain("refused by the tool");
        expect(now.join("\n")).toContain("does not match its outputSchema");
        if (mode === "sse") expect(now[7]).toContain('"data":"before the answer"');
        if (revision === "2025-03-26") expect(now.at(-1)).toContain('"id":10');
      });
});

describe("the server's request path", () => {
  /** A server with the synchronous tools on a transport that records what it is asked to send. */
  async function connected() {
    const sent: unknown[] = [];
    const transport: Transport = {
      start: async () => {},
      send: async (m) => {
        sent.push(m);
      },
      close: async () => {},
    };
    await mcpServer(false).connect(transport);
    const init = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "sync-answer", version: "0" } },
    };
    transport.onmessage?.(init);
    while (sent.length === 0) await new Promise((resolve) => setImmediate(resolve));
    transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    await new Promise((resolve) => setImmediate(resolve));
    return { sent, deliver: (m: unknown) => transport.onmessage?.(m) };
  }

  test("a synchronous tool's answer is sent at the first microtask checkpoint, not after a chain of awaits", async () => {
    const { sent, deliver } = await connected();
    deliver(call(1, "echo", "at once"));
    await Promise.resolve();
    expect(sent.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: "at once" }] } });
    deliver(call(2, "fails", "x"));
    await Promise.resolve();
    expect(sent.at(-1)).toMatchObject({ id: 2, result: { isError: true } });
    deliver(call(3, "nosuch", "x"));
    await Promise.resolve();
    expect(sent.at(-1)).toMatchObject({ id: 3, error: { code: -32602 } });
  });

  test("a cancellation delivered right behind its request still suppresses a synchronous answer", async () => {
    const { sent, deliver } = await connected();
    const before = sent.length;
    deliver(call(4, "echo", "cancelled"));
    deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4, reason: "changed my mind" } });
    deliver(call(5, "echo", "answered"));
    while (sent.length === before) await new Promise((resolve) => setImmediate(resolve));
    expect(sent.slice(before)).toEqual([{ jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "answered" }] } }]);
  });
});
