/**
 * A dual-era server: the same McpServer answers a 2026-07-28 client (per-request `_meta`, no handshake)
 * and a handshake client, each on its own connection. Every message the server sends to the modern client
 * validates against the official 2026-07-28 schema.
 */
import { describe, expect, test } from "bun:test";
import { INIT, newServer, rawClient, useCleanup } from "../__fixtures__/test-harness.ts";
import { NEEDS_SHARED, sharedMissing, validateOfficial } from "@agentd/test-support/oracle";
import { STATELESS_META } from "../../wire/schemas/methods-2026-07-28.ts";
import type { McpServer } from "./server.ts";

useCleanup();

const REV = "2026-07-28";
const META = {
  [STATELESS_META.protocolVersion]: REV,
  [STATELESS_META.clientCapabilities]: {},
  [STATELESS_META.clientInfo]: { name: "modern", version: "1" },
};

function richServer(): McpServer {
  const server = newServer({ instructions: "be kind", capabilities: { serverNotifications: true } });
  server.tool({ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, async (args, ctx) => {
    await ctx.log("info", "echoing");
    await ctx.log("debug", "details");
    return { content: [{ type: "text", text: String(args.text) }] };
  });
  server.resource({ uri: "agent://status", name: "status" }, (uri) => ({ contents: [{ uri, text: "idle" }] }));
  server.tool({ name: "ask" }, async (_args, ctx) => {
    const answer = await ctx.sendRequest<{ action: string; content?: { name?: string } }>("elicitation/create", {
      mode: "form",
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    });
    return { content: [{ type: "text", text: `hello ${answer.content?.name ?? answer.action}` }] };
  });
  return server;
}

/** Every message the raw client received, checked against the official schema (results by their request's method). */
function expectAllOfficial(received: Record<string, unknown>[], methods: Map<unknown, string>): void {
  const wrong = received.flatMap((m) => {
    const r = validateOfficial(REV, m, "id" in m ? methods.get(m.id) : undefined);
    return r.ok ? [] : [`${JSON.stringify(m).slice(0, 120)}: ${r.errors}`];
  });
  expect(wrong).toEqual([]);
}

describe("a 2026-07-28 client", () => {
  test("discover, list, call and read without initialize; results carry resultType, serverInfo and caching hints", async () => {
    const { raw, session } = await rawClient(richServer());
    const discover = await raw.request("server/discover", { _meta: META });
    expect(discover.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
      instructions: "be kind",
      _meta: { [STATELESS_META.serverInfo]: { name: "srv", version: "1.0.0" } },
      cacheScope: "public",
    });
    expect(session.modern).toBe(true);
    expect(session.protocolVersion).toBe(REV);
    const tools = await raw.request("tools/list", { _meta: META });
    expect(tools.result).toMatchObject({
      resultType: "complete",
      tools: [{ name: "echo" }, { name: "ask" }],
      ttlMs: 0,
      cacheScope: "public",
    });
    const call = await raw.request("tools/call", { _meta: META, name: "echo", arguments: { text: "hi" } });
    expect(call.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "hi" }] });
    expect(call.result.ttlMs).toBeUndefined();
    const read = await raw.request("resources/read", { _meta: META, uri: "agent://status" });
    expect(read.result).toMatchObject({ resultType: "complete", contents: [{ text: "idle" }], cacheScope: "private" });
    const missing = await raw.request("resources/read", { _meta: META, uri: "agent://missing" });
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: "agent://missing" } });
    // No notifications/message: no request asked for a log level.
    expect(raw.received.filter((m) => m.method === "notifications/message")).toEqual([]);
  });

  test("per-request log level: notifications/message only for the request that set it, at or above it", async () => {
    const { raw } = await rawClient(richServer());
    const call = await raw.request("tools/call", {
      _meta: { ...META, [STATELESS_META.logLevel]: "info" },
      name: "echo",
      arguments: { text: "x" },
    });
    expect(call.result.resultType).toBe("complete");
    const logs = raw.received.filter((m) => m.method === "notifications/message");
    expect(logs.map((m) => m.params.data)).toEqual(["echoing"]);
  });

  test("a version we do not serve per request is -32022 naming every version we serve; a missing _meta field is -32602", async () => {
    const { raw, session } = await rawClient(richServer());
    const r = await raw.request("tools/list", { _meta: { ...META, [STATELESS_META.protocolVersion]: "2099-01-01" } });
    expect(r.error).toMatchObject({
      code: -32022,
      data: { requested: "2099-01-01", supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] },
    });
    expect(session.modern).toBe(false);
    await raw.request("server/discover", { _meta: META });
    const missing = await raw.request("tools/list", { _meta: { [STATELESS_META.protocolVersion]: REV } });
    expect(missing.error.code).toBe(-32602);
    expect(missing.error.message).toContain(STATELESS_META.clientCapabilities);
    expect((await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" })).error.code).toBe(-32600);
    expect((await raw.request("ping", { _meta: META })).error.code).toBe(-32601);
  });

  test("subscriptions/listen: acknowledged first, then updates and list changes tagged with the subscription id; cancel ends it", async () => {
    const server = richServer();
    const { raw, session } = await rawClient(server);
    const listenId = 7;
    await raw.send({
      jsonrpc: "2.0",
      id: listenId,
      method: "subscriptions/listen",
      params: {
        _meta: META,
        notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["agent://status"] },
      },
    });
    const ack = await raw.next((m) => m.method === "notifications/subscriptions/acknowledged");
    // Prompts are off (not declared): not acknowledged.
    expect(ack.params).toEqual({
      _meta: { [STATELESS_META.subscriptionId]: listenId },
      notifications: { toolsListChanged: true, resourceSubscriptions: ["agent://status"] },
    });
    await server.notifyResourceUpdated("agent://status");
    await server.notifyResourceUpdated("agent://other");
    const updated = await raw.next((m) => m.method === "notifications/resources/updated");
    expect(updated.params).toEqual({ _meta: { [STATELESS_META.subscriptionId]: listenId }, uri: "agent://status" });
    server.tool({ name: "later" }, () => ({ content: [] }));
    const changed = await raw.next((m) => m.method === "notifications/tools/list_changed");
    expect(changed.params._meta[STATELESS_META.subscriptionId]).toBe(listenId);
    expect(raw.received.filter((m) => m.method === "notifications/resources/updated")).toHaveLength(1);
    // The acknowledgement came before anything else of the subscription.
    const ofListen = raw.received.filter((m) => m.params?._meta?.[STATELESS_META.subscriptionId] === listenId);
    expect(ofListen[0].method).toBe("notifications/subscriptions/acknowledged");
    await raw.notify("notifications/cancelled", { requestId: listenId });
    await raw.request("tools/list", { _meta: META }); // the cancel has been processed once this answers
    const before = raw.received.length;
    await server.notifyResourceUpdated("agent://status");
    await raw.request("tools/list", { _meta: META });
    expect(raw.received.slice(before).filter((m) => m.method === "notifications/resources/updated")).toEqual([]);
    expect(session.protocol.load.inbound).toBe(0);
  });

  test("a handler asking the client for input: an input-required result, answered on the retry; -32021 when not declared", async () => {
    const { raw } = await rawClient(richServer());
    const undeclared = await raw.request("tools/call", { _meta: META, name: "ask" });
    expect(undeclared.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
    const withElicitation = { ...META, [STATELESS_META.clientCapabilities]: { elicitation: { form: {} } } };
    const first = await raw.request("tools/call", { _meta: withElicitation, name: "ask" });
    expect(first.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { "elicitation/create#0": { method: "elicitation/create", params: { message: "Your name?" } } },
    });
    expect(first.result.ttlMs).toBeUndefined();
    const retry = await raw.request("tools/call", {
      _meta: withElicitation,
      name: "ask",
      inputResponses: { "elicitation/create#0": { action: "accept", content: { name: "Ada" } } },
    });
    expect(retry.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "hello Ada" }] });
  });

  test("closing the server ends an open listen gracefully: its response carries the subscription id", async () => {
    const server = richServer();
    const { raw } = await rawClient(server);
    await raw.send({
      jsonrpc: "2.0",
      id: "sub",
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    });
    await raw.next((m) => m.method === "notifications/subscriptions/acknowledged");
    await server.close();
    const end = await raw.next((m) => m.id === "sub");
    expect(end.result).toMatchObject({ resultType: "complete", _meta: { [STATELESS_META.subscriptionId]: "sub" } });
  });

  test.skipIf(sharedMissing)(
    `${NEEDS_SHARED} everything the server sent in a modern session validates against the official 2026-07-28 schema`,
    async () => {
      const server = richServer();
      const { raw } = await rawClient(server);
      const methods = new Map<unknown, string>();
      const ask = async (method: string, params: Record<string, unknown>) => {
        const sent = raw.request(method, params);
        methods.set(1000 + methods.size, method);
        return sent;
      };
      await ask("server/discover", { _meta: META });
      await ask("tools/list", { _meta: META });
      await ask("tools/call", {
        _meta: { ...META, [STATELESS_META.logLevel]: "debug", progressToken: "p" },
        name: "echo",
        arguments: { text: "a" },
      });
      await ask("resources/list", { _meta: META });
      await ask("resources/templates/list", { _meta: META });
      await ask("resources/read", { _meta: META, uri: "agent://status" });
      await ask("resources/read", { _meta: META, uri: "agent://missing" });
      await ask("tools/call", { _meta: META, name: "nope" });
      await ask("tools/call", { _meta: { ...META, [STATELESS_META.clientCapabilities]: { elicitation: {} } }, name: "ask" });
      await ask("tools/call", { _meta: META, name: "ask" });
      await ask("tools/list", { _meta: { ...META, [STATELESS_META.protocolVersion]: "1900-01-01" } });
      await raw.send({
        jsonrpc: "2.0",
        id: 1,
        method: "subscriptions/listen",
        params: { _meta: META, notifications: { resourceSubscriptions: ["agent://status"] } },
      });
      methods.set(1, "subscriptions/listen");
      await raw.next((m) => m.method === "notifications/subscriptions/acknowledged");
      await server.notifyResourceUpdated("agent://status");
      await raw.next((m) => m.method === "notifications/resources/updated");
      for (const s of server.sessions()) s.endListens();
      await raw.next((m) => m.id === 1);
      expect(raw.received.length).toBeGreaterThan(12);
      expectAllOfficial(raw.received, methods);
    },
  );
});

describe("the handshake era on the same server", () => {
  test("initialize still negotiates 2025-11-25; server/discover and subscriptions/listen are not part of it", async () => {
    const server = richServer();
    const { raw, session } = await rawClient(server);
    const init = await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" });
    expect(init.result.protocolVersion).toBe("2025-11-25");
    expect(session.modern).toBe(false);
    expect((await raw.request("server/discover", { _meta: META })).error.code).toBe(-32601);
    expect((await raw.request("subscriptions/listen", { _meta: META, notifications: {} })).error.code).toBe(-32601);
    const tools = await raw.request("tools/list", {});
    expect(tools.result.resultType).toBeUndefined();
    // A client asking initialize for 2026-07-28 (which has none) gets our newest handshake revision.
    const other = await rawClient(server);
    expect((await other.raw.request("initialize", { ...INIT, protocolVersion: REV })).result.protocolVersion).toBe("2025-11-25");
  });
});
