/**
 * Proof: every message our client and our server emit in a rich session validates against the official
 * MCP 2025-11-25 JSON Schema (ajv) and parses with the official TypeScript SDK (zod). Traffic is recorded
 * by a Transport wrapper around each end of an in-memory pair; results are checked against the method of
 * the request they answer.
 */
import { afterEach, expect, test } from "bun:test";
import { MemoryTransport } from "../transport/memory.ts";
import type { SendOptions, Transport } from "../transport/types.ts";
import type { JsonRpcMessage } from "../wire/jsonrpc.ts";
import { McpClient } from "./client/client.ts";
import { NEEDS_SHARED, parseWithOfficialSdk, sharedMissing, validateOfficial } from "@agentd/test-support/oracle";
import { createFakeMcpServer, type FakeMcpServer } from "@agentd/testkit";
import type { FakeMcpServerSpec } from "@agentd/testkit";

type Side = "client" | "server";
interface Emitted {
  /** The connection (ids repeat across connections). */
  conn: string;
  side: Side;
  message: Record<string, unknown>;
}

/** Records every message sent through `inner`. */
class SendRecorder implements Transport {
  onmessage?: Transport["onmessage"];
  onframeerror?: Transport["onframeerror"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];
  constructor(
    private readonly inner: Transport,
    private readonly conn: string,
    private readonly side: Side,
    private readonly log: Emitted[],
  ) {}
  start(): Promise<void> {
    this.inner.onmessage = (m, extra) => this.onmessage?.(m, extra);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (e) => this.onerror?.(e);
    return this.inner.start();
  }
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    this.log.push({ conn: this.conn, side: this.side, message: structuredClone(message) as unknown as Record<string, unknown> });
    return this.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

let fake: FakeMcpServer | undefined;
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await fake?.close();
  fake = undefined;
});

const SPEC: FakeMcpServerSpec = {
  tools: [
    {
      name: "text",
      text: "hi {{who}}",
      progress: [
        { progress: 1, total: 2, message: "half" },
        { progress: 2, total: 2 },
      ],
      logs: [{ level: "info", data: { step: 1 }, logger: "t" }],
    },
    {
      name: "weather",
      outputSchema: { type: "object", properties: { c: { type: "number" } }, required: ["c"] },
      result: { content: [{ type: "text", text: "21" }], structuredContent: { c: 21 } },
    },
    {
      name: "picture",
      result: {
        content: [
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "resource_link", uri: "file:///a", name: "a" },
        ],
      },
    },
    { name: "fails", text: "no", isError: true },
    { name: "stuck", hang: true },
    { name: "roots", clientRequest: { method: "roots/list" } },
    {
      name: "sample",
      clientRequest: {
        method: "sampling/createMessage",
        params: { messages: [{ role: "user", content: { type: "text", text: "?" } }], maxTokens: 9 },
      },
    },
    {
      name: "ask",
      clientRequest: {
        method: "elicitation/create",
        params: { message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
      },
    },
  ],
  resources: [
    { uri: "file:///doc.md", name: "doc", mimeType: "text/markdown", text: "# doc" },
    { uri: "file:///bin", name: "bin", blob: "AAEC" },
  ],
  resourceTemplates: [{ uriTemplate: "db://rows/{id}", name: "row", text: "row {{id}}", complete: { id: ["1", "12"] } }],
  prompts: [
    {
      name: "review",
      arguments: [{ name: "lang", required: true }],
      messages: [{ role: "user", text: "Review {{lang}}" }],
      complete: { lang: ["go", "rust"] },
    },
  ],
};

async function connect(conn: string, log: Emitted[], options: ConstructorParameters<typeof McpClient>[1]): Promise<McpClient> {
  const [clientEnd, serverEnd] = MemoryTransport.createPair();
  await fake!.connect(new SendRecorder(serverEnd, conn, "server", log));
  const client = new McpClient({ name: "oracle-client", version: "1.0.0" }, options);
  clients.push(client);
  await client.connect(new SendRecorder(clientEnd, conn, "client", log));
  return client;
}

test.skipIf(sharedMissing)(
  `${NEEDS_SHARED} every message our client and server emit validates against the official schema and SDK`,
  async () => {
    fake = createFakeMcpServer(SPEC);
    const log: Emitted[] = [];
    const rich = await connect("rich", log, {
      capabilities: {
        prompts: true,
        completion: true,
        roots: [{ uri: "file:///work", name: "work" }],
        sampling: async () => ({ role: "assistant", content: { type: "text", text: "42" }, model: "m", stopReason: "endTurn" }),
        elicitation: async () => ({ action: "accept", content: { name: "Ada" } }),
      },
    });
    const v1 = await connect("v1", log, {});

    await rich.setLoggingLevel("debug");
    await rich.listTools();
    await rich.callTool("text", { who: "you" }, { onprogress: () => {} });
    await rich.callTool("weather");
    await rich.callTool("picture");
    await rich.callTool("fails");
    await expect(rich.callTool("nope")).rejects.toMatchObject({ code: -32602 });
    const abort = new AbortController();
    const stuck = rich.callTool("stuck", {}, { signal: abort.signal });
    await fake.waitForRequest((r) => r.params.name === "stuck");
    abort.abort();
    await stuck.catch(() => {});
    await fake.waitForCancellation();
    for (const client of [rich, v1]) for (const tool of ["roots", "sample", "ask"]) await client.callTool(tool);
    await rich.setRoots([{ uri: "file:///other" }]);
    await rich.listResources();
    await rich.listResourceTemplates();
    await rich.readResource("file:///doc.md");
    await rich.readResource("file:///bin");
    await rich.readResource("db://rows/12");
    await expect(rich.readResource("file:///missing")).rejects.toMatchObject({ code: -32002 });
    await rich.subscribe("file:///doc.md");
    const updated = new Promise((resolve) => rich.on("resourceUpdated", resolve));
    await fake.setResource("file:///doc.md", "# doc v2");
    await updated;
    const listChanged = new Promise<void>((resolve) => rich.on("resourcesListChanged", () => resolve()));
    await fake.setResource("file:///new.txt", "new");
    await listChanged;
    await rich.unsubscribe("file:///doc.md");
    const toolsChanged = new Promise<void>((resolve) => rich.on("toolsListChanged", () => resolve()));
    fake.addTool({ name: "late" });
    await toolsChanged;
    await rich.listPrompts();
    await rich.getPrompt("review", { lang: "go" });
    await expect(rich.getPrompt("review")).rejects.toMatchObject({ code: -32602 });
    await rich.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "lang", value: "r" } });
    await rich.complete({ ref: { type: "ref/resource", uri: "db://rows/{id}" }, argument: { name: "id", value: "1" } });
    await rich.ping();
    await v1.ping();

    // A raw peer's garbage: the server's errors for values whose id cannot be read (no `id`), and pre-initialize.
    const [raw, serverEnd] = MemoryTransport.createPair();
    await fake.connect(new SendRecorder(serverEnd, "raw", "server", log));
    const replies: unknown[] = [];
    const three = new Promise<void>((resolve) => (raw.onmessage = (m) => replies.push(m) === 3 && resolve()));
    await raw.start();
    for (const value of [42, { jsonrpc: "2.0", method: 5 }, { jsonrpc: "2.0", id: "early", method: "tools/list" }])
      await raw.send(value as never);
    await three;
    expect(replies.map((m) => (m as { error: { code: number } }).error.code)).toEqual([-32600, -32600, -32600]);

    // Which method each id asked for, per sender (results are validated against the request's method).
    const asked = new Map<string, string>();
    const askedBy = (conn: string, side: Side, id: unknown) => `${conn}:${side}:${JSON.stringify(id)}`;
    const answering = (conn: string, side: Side, id: unknown) => asked.get(askedBy(conn, side === "client" ? "server" : "client", id));
    for (const { conn, side, message } of log)
      if (typeof message.method === "string" && "id" in message) asked.set(askedBy(conn, side, message.id), message.method);
    const problems: string[] = [];
    for (const { conn, side, message } of log) {
      const method = "method" in message ? undefined : answering(conn, side, message.id);
      if (!("method" in message) && "result" in message && method === undefined)
        problems.push(`${side} answered an id nobody asked: ${JSON.stringify(message)}`);
      for (const verdict of [validateOfficial("2025-11-25", message, method), parseWithOfficialSdk(message, method)])
        if (!verdict.ok)
          problems.push(`${side} ${method ?? message.method ?? "error"}: ${verdict.errors} in ${JSON.stringify(message).slice(0, 300)}`);
    }
    expect(problems).toEqual([]);

    // The session was as rich as claimed: both directions, requests, results, errors and notifications.
    const kindOf = ({ conn, side, message }: Emitted) =>
      typeof message.method === "string"
        ? message.method
        : "error" in message
          ? `error ${(message.error as { code: number }).code}`
          : `result ${answering(conn, side, message.id)}`;
    const kinds = new Set(log.map((e) => `${e.side} ${kindOf(e)}`));
    for (const k of [
      "client initialize",
      "client notifications/initialized",
      "client tools/call",
      "client notifications/cancelled",
      "client notifications/roots/list_changed",
      "client completion/complete",
      "client prompts/get",
      "client resources/subscribe",
      "client result roots/list",
      "client result sampling/createMessage",
      "client result elicitation/create",
      "client error -32601",
      "server result initialize",
      "server result tools/call",
      "server result resources/read",
      "server result prompts/get",
      "server result completion/complete",
      "server error -32602",
      "server error -32600",
      "server error -32002",
      "server notifications/progress",
      "server notifications/message",
      "server notifications/resources/updated",
      "server notifications/resources/list_changed",
      "server notifications/tools/list_changed",
      "server roots/list",
      "server sampling/createMessage",
      "server elicitation/create",
    ])
      expect(kinds.has(k), `no "${k}" in the session`).toBe(true);
    expect(log.length).toBeGreaterThan(60);
  },
);
