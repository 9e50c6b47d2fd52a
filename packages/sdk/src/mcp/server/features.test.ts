/** McpServer features against McpClient: resources, prompts, completion, logging, server→client requests. */
import { describe, expect, test } from "bun:test";
import type { CapabilityConfig } from "../capabilities.ts";
import type { ServerSession } from "./session.ts";
import { connect, INIT, newServer, rawClient, useCleanup } from "../__fixtures__/test-harness.ts";

useCleanup();

describe("resources", () => {
  function resourceServer() {
    const server = newServer();
    server.resource({ uri: "mem://static", name: "static", mimeType: "text/plain" }, (uri) => ({ contents: [{ uri, text: "hello" }] }));
    server.resourceTemplate({ uriTemplate: "mem://items/{id}/data", name: "item" }, (uri, vars) => ({
      contents: [{ uri, text: `item ${vars.id}` }],
    }));
    return server;
  }

  test("list, templates, read (fixed and templated), unknown URI → -32002", async () => {
    const { client } = await connect(resourceServer());
    expect((await client.listResources()).map((r) => r.uri)).toEqual(["mem://static"]);
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["mem://items/{id}/data"]);
    expect((await client.readResource("mem://static")).contents).toEqual([{ uri: "mem://static", text: "hello" }]);
    expect((await client.readResource("mem://items/a%20b/data")).contents[0]).toMatchObject({ text: "item a b" });
    const e = await client.readResource("mem://items/x/y/data").catch((x) => x);
    expect(e.code).toBe(-32002);
    expect(e.data).toEqual({ uri: "mem://items/x/y/data" });
  });

  test("subscriptions: updates reach subscribed sessions only, until unsubscribed", async () => {
    const server = resourceServer();
    const one = await connect(server);
    const two = await connect(server);
    const got1: string[] = [];
    const got2: string[] = [];
    one.client.on("resourceUpdated", (u) => got1.push(u.uri));
    two.client.on("resourceUpdated", (u) => got2.push(u.uri));
    await one.client.subscribe("mem://static");
    expect(one.client.subscriptions()).toEqual(["mem://static"]);
    expect(one.client.isSubscribed("mem://static")).toBe(true);
    expect([...one.session.subscriptions]).toEqual(["mem://static"]);
    await server.notifyResourceUpdated("mem://static");
    await server.notifyResourceUpdated("mem://other");
    // Each ping's response follows any notification sent before it.
    await one.client.ping();
    await two.client.ping();
    expect(got1).toEqual(["mem://static"]);
    expect(got2).toEqual([]);
    await one.client.unsubscribe("mem://static");
    expect(one.client.subscriptions()).toEqual([]);
    expect(one.client.isSubscribed("mem://static")).toBe(false);
    await server.notifyResourceUpdated("mem://static");
    await one.client.ping();
    expect(got1).toEqual(["mem://static"]);
  });

  test("resources/list_changed on registration", async () => {
    const server = resourceServer();
    const { client } = await connect(server);
    const changed = new Promise<void>((r) => client.on("resourcesListChanged", () => r()));
    server.resource({ uri: "mem://new", name: "new" }, (uri) => ({ contents: [{ uri, text: "" }] }));
    await changed;
    expect((await client.listResources()).length).toBe(2);
  });
});

describe("prompts, completion, logging (switched on)", () => {
  const on: CapabilityConfig = { prompts: true, completion: true, serverNotifications: true };

  test("prompts: list, get, missing argument → -32602, unknown → -32602; list_changed", async () => {
    const server = newServer({ capabilities: on });
    server.prompt({ name: "greet", arguments: [{ name: "who", required: true }] }, (args) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello ${args.who}` } }],
    }));
    const { client } = await connect(server, { capabilities: on });
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(["greet"]);
    expect((await client.getPrompt("greet", { who: "Ada" })).messages[0]?.content).toEqual({ type: "text", text: "Hello Ada" });
    expect(await client.getPrompt("greet").catch((e) => e.code)).toBe(-32602);
    expect(await client.getPrompt("nope").catch((e) => e.code)).toBe(-32602);
    const changed = new Promise<void>((r) => client.on("promptsListChanged", () => r()));
    server.prompt({ name: "other" }, () => ({ messages: [] }));
    await changed;
  });

  test("completion for prompt arguments and template variables, capped at 100", async () => {
    const server = newServer({ capabilities: on });
    server.prompt({ name: "lang", arguments: [{ name: "l" }] }, () => ({ messages: [] }), {
      complete: { l: (v) => ["python", "pytorch", "rust"].filter((x) => x.startsWith(v)) },
    });
    server.resourceTemplate({ uriTemplate: "mem://n/{n}", name: "n" }, (uri) => ({ contents: [{ uri, text: "" }] }), {
      complete: { n: () => Array.from({ length: 150 }, (_, i) => String(i)) },
    });
    const { client } = await connect(server, { capabilities: on });
    const py = await client.complete({ ref: { type: "ref/prompt", name: "lang" }, argument: { name: "l", value: "py" } });
    expect(py.completion).toEqual({ values: ["python", "pytorch"], total: 2, hasMore: false });
    const many = await client.complete({ ref: { type: "ref/resource", uri: "mem://n/{n}" }, argument: { name: "n", value: "" } });
    expect(many.completion.values.length).toBe(100);
    expect(many.completion).toMatchObject({ total: 150, hasMore: true });
    const none = await client.complete({ ref: { type: "ref/prompt", name: "lang" }, argument: { name: "zzz", value: "" } });
    expect(none.completion.values).toEqual([]);
    expect(await client.complete({ ref: { type: "ref/prompt", name: "x" }, argument: { name: "l", value: "" } }).catch((e) => e.code)).toBe(
      -32602,
    );
  });

  test("logging: setLevel filters; ctx.log and server.log deliver at or above the level; progress relates to the call", async () => {
    const server = newServer({ capabilities: on });
    server.tool({ name: "chatty" }, async (_a, ctx) => {
      await ctx.log("info", "too quiet");
      await ctx.log("error", { what: "loud" }, "db");
      await ctx.sendProgress(1, 1);
      return { content: [] };
    });
    const { client } = await connect(server, { capabilities: on });
    const logs: unknown[] = [];
    client.on("log", (l) => logs.push(l));
    await client.setLoggingLevel("warning");
    const progress: unknown[] = [];
    await client.callTool("chatty", {}, { onprogress: (p) => progress.push(p) });
    await server.log("debug", "dropped");
    await server.log("critical", "kept");
    await client.ping();
    expect(logs).toEqual([
      { level: "error", logger: "db", data: { what: "loud" } },
      { level: "critical", logger: undefined, data: "kept" },
    ]);
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    expect(await client.setLoggingLevel("loud" as "info").catch((e) => e.code)).toBe(-32602);
  });
});

describe("server → client requests", () => {
  test("sampling on a client that did not declare it gets -32601 and the session carries on", async () => {
    const server = newServer();
    let sessionSeen: ServerSession | undefined;
    server.tool({ name: "ask" }, async (_a, ctx) => {
      sessionSeen = ctx.session;
      const e = await ctx.session
        .createMessage(
          { messages: [{ role: "user", content: { type: "text", text: "?" } }], maxTokens: 1 },
          { relatedRequestId: ctx.requestId },
        )
        .catch((x) => x);
      return { content: [{ type: "text", text: `sampling answered ${e.code}` }] };
    });
    const { client } = await connect(server);
    expect(await client.callTool("ask")).toEqual({ content: [{ type: "text", text: "sampling answered -32601" }] });
    expect(await sessionSeen?.listRoots()).toEqual([]);
    await sessionSeen?.ping();
    expect((await client.listTools()).length).toBe(1);
  });

  test("ctx.sendRequest round-trips to the client", async () => {
    const server = newServer();
    server.tool({ name: "roots" }, async (_a, ctx) => {
      const r = await ctx.sendRequest<{ roots: { uri: string }[] }>("roots/list");
      return { content: [{ type: "text", text: r.roots.map((x) => x.uri).join(",") }] };
    });
    const { client } = await connect(server, { capabilities: { roots: [{ uri: "file:///a" }, { uri: "file:///b" }] } });
    expect(await client.callTool("roots")).toEqual({ content: [{ type: "text", text: "file:///a,file:///b" }] });
  });
});

describe("the request context a tool handler gets", () => {
  test("can be destructured and spread: methods, signal and data all come along", async () => {
    const server = newServer({ capabilities: { serverNotifications: true } });
    const seen: Record<string, unknown> = {};
    server.tool({ name: "ctx" }, async (_a, { sendProgress, log, signal, requestId, session, ...rest }) => {
      await sendProgress(1, 2, "half");
      await log("info", "from a destructured log");
      const copy = { ...rest, signal, requestId };
      seen.aborted = signal.aborted;
      seen.copyKeys = Object.keys({ ...copy }).sort();
      seen.sameSession = session !== undefined;
      seen.spreadSignal = { ...{ signal } }.signal === signal;
      return { content: [{ type: "text", text: String(requestId) }] };
    });
    const { client } = await connect(server);
    const progress: number[] = [];
    const logs: unknown[] = [];
    client.on("log", (m) => logs.push(m.data));
    const r = await client.callTool("ctx", {}, { onprogress: (p) => progress.push(p.progress) });
    expect(r.content).toHaveLength(1);
    expect(progress).toEqual([1]);
    expect(logs).toContain("from a destructured log");
    expect(seen).toMatchObject({ aborted: false, sameSession: true, spreadSignal: true });
    expect(seen.copyKeys).toEqual(
      [
        "authInfo",
        "clientCapabilities",
        "meta",
        "method",
        "progressToken",
        "requestId",
        "sendNotification",
        "sendRequest",
        "sessionId",
        "signal",
      ].sort(),
    );
  });
});

describe("a session's own handlers", () => {
  test("an undeclared capability's method is -32601, unless the session registered a handler of its own", async () => {
    const server = newServer(); // prompts off: not declared
    server.tool({ name: "t" }, () => ({ content: [] }));
    const { raw, session } = await rawClient(server);
    await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" });
    expect((await raw.request("prompts/list", {})).error?.code).toBe(-32601);
    session.protocol.setRequestHandler("prompts/list", () => ({ prompts: [] }));
    expect(session.protocol.hasOwnRequestHandler("prompts/list")).toBe(true);
    expect((await raw.request("prompts/list", {})).result).toEqual({ prompts: [] });
    session.protocol.removeRequestHandler("prompts/list");
    expect((await raw.request("prompts/list", {})).error?.code).toBe(-32601);
    // A shared handler hidden for one session only: the other sessions still answer.
    expect((await raw.request("tools/list", {})).result).toMatchObject({ tools: [{ name: "t" }] });
    session.protocol.removeRequestHandler("tools/list");
    expect((await raw.request("tools/list", {})).error?.code).toBe(-32601);
    const other = await rawClient(server);
    await other.raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" });
    expect((await other.raw.request("tools/list", {})).result).toMatchObject({ tools: [{ name: "t" }] });
  });
});
