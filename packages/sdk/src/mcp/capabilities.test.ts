/**
 * The capability map: every switch's off state (the default), and the on state of
 * roots, sampling and elicitation with a handler.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../transport/memory.ts";
import { memoryLogger } from "../log.ts";
import type { ServerCapabilities } from "../wire/index.ts";
import { CAPABILITY_ITEMS, type CapabilityConfig } from "./capabilities.ts";
import { McpClient } from "./client/client.ts";
import { McpServer } from "./server/server.ts";
import { RawPeer } from "./__fixtures__/test-peer.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

/** A client connected to a hand-driven server that declares `caps`. */
async function clientOnRawServer(capabilities: CapabilityConfig = {}, caps: ServerCapabilities = { tools: {} }) {
  const [a, b] = MemoryTransport.createPair();
  const raw = await RawPeer.attach(b);
  const logger = memoryLogger();
  const client = new McpClient({ name: "agentd-test", version: "0" }, { capabilities, logger });
  closers.push(() => client.close());
  const connecting = client.connect(a);
  const init = await raw.nextRequest("initialize");
  await raw.respond(init.id, { protocolVersion: "2025-11-25", capabilities: caps, serverInfo: { name: "raw", version: "1" } });
  await connecting;
  await raw.next((m) => m.method === "notifications/initialized");
  return { client, raw, init, logger };
}

/** A client and a real server over a memory pair. */
async function clientOnServer(clientCaps: CapabilityConfig, setup: (s: McpServer) => void = () => {}) {
  const server = new McpServer({ name: "srv", version: "1" });
  setup(server);
  const [a, b] = MemoryTransport.createPair();
  const session = await server.connect(b);
  const client = new McpClient({ name: "c", version: "1" }, { capabilities: clientCaps });
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  await client.connect(a);
  return { server, session, client };
}

describe("the defaults (everything off)", () => {
  test("the map has one row per switchable item", () => {
    expect(CAPABILITY_ITEMS.map((i) => i.key)).toEqual([
      "tasks",
      "sampling",
      "roots",
      "elicitation",
      "completion",
      "prompts",
      "serverNotifications",
    ]);
  });

  test("the client declares no capabilities", async () => {
    const { init } = await clientOnRawServer();
    expect(init.params.capabilities).toEqual({});
    expect(init.params.protocolVersion).toBe("2025-11-25");
  });

  test('inbound sampling → -32601, roots/list → {"roots":[]}, elicitation → -32601, unknown → -32601', async () => {
    const { raw } = await clientOnRawServer();
    const sampling = await raw.request("sampling/createMessage", {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 10,
    });
    expect(sampling.error.code).toBe(-32601);
    // Refused before validation: malformed params get the same answer.
    expect((await raw.request("sampling/createMessage", { junk: true })).error.code).toBe(-32601);
    expect((await raw.request("roots/list")).result).toEqual({ roots: [] });
    const elicit = await raw.request("elicitation/create", {
      message: "name?",
      requestedSchema: { type: "object", properties: { n: { type: "string" } } },
    });
    expect(elicit.error.code).toBe(-32601);
    expect((await raw.request("some/unknown")).error.code).toBe(-32601);
    expect((await raw.request("tasks/list")).error.code).toBe(-32601);
    expect((await raw.request("ping")).result).toEqual({});
  });

  test('a tool with taskSupport "required" is not offered, a warning is logged, and calling it is refused', async () => {
    const { client, raw, logger } = await clientOnRawServer({}, { tools: {}, tasks: { requests: { tools: { call: {} } } } });
    const listing = client.listTools();
    const req = await raw.nextRequest("tools/list");
    await raw.respond(req.id, {
      tools: [
        { name: "quick", inputSchema: { type: "object" } },
        { name: "slow", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
        { name: "either", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
      ],
    });
    expect((await listing).map((t) => t.name)).toEqual(["quick", "either"]);
    const warn = logger.records.find((r) => r.event === "mcp.tool_unavailable");
    expect(warn).toMatchObject({ level: "warn", tool: "slow" });
    expect(await client.callTool("slow", {}).catch((e) => e.code)).toBe("E_CAPABILITY");
    expect(raw.received.some((m) => m.method === "tools/call")).toBe(false);
  });

  test("the client never calls prompts/* or completion/* and ignores prompts list_changed", async () => {
    const { client, raw } = await clientOnRawServer({}, { tools: {}, prompts: { listChanged: true }, completions: {} });
    expect(await client.listPrompts().catch((e) => e.code)).toBe("E_CAPABILITY");
    expect(await client.getPrompt("p").catch((e) => e.code)).toBe("E_CAPABILITY");
    const complete = client.complete({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } });
    expect(await complete.catch((e) => e.code)).toBe("E_CAPABILITY");
    let promptEvents = 0;
    client.on("promptsListChanged", () => promptEvents++);
    let toolEvents = 0;
    const toolsChanged = new Promise<void>((r) => client.on("toolsListChanged", () => (toolEvents++, r())));
    await raw.notify("notifications/prompts/list_changed");
    await raw.notify("notifications/tools/list_changed");
    await toolsChanged;
    expect([promptEvents, toolEvents]).toEqual([0, 1]);
    expect(raw.received.filter((m) => /^(prompts|completion)\//.test(m.method ?? "")).length).toBe(0);
  });

  test("roots off: setRoots is refused and no roots/list_changed is ever sent", async () => {
    const { client, raw } = await clientOnRawServer();
    expect(await client.setRoots([{ uri: "file:///x" }]).catch((e) => e.code)).toBe("E_CAPABILITY");
    // A round trip: anything the client sent before would have arrived first.
    expect((await raw.request("roots/list")).result).toEqual({ roots: [] });
    expect(raw.received.some((m) => m.method === "notifications/roots/list_changed")).toBe(false);
  });

  test("server: prompts, completions and logging are not declared; ctx.log and progress emit nothing", async () => {
    const logged: unknown[] = [];
    const { client, server } = await clientOnServer({}, (s) => {
      s.prompt({ name: "p" }, () => ({ messages: [] }), { complete: { a: () => ["x"] } });
      s.tool({ name: "t" }, async (_a, ctx) => {
        await ctx.log("error", "should not be sent");
        await ctx.sendProgress(1, 1);
        return { content: [] };
      });
    });
    expect(server.capabilities()).toEqual({ tools: { listChanged: true } });
    expect(client.serverCapabilities).toEqual({ tools: { listChanged: true } });
    client.on("log", (l) => logged.push(l));
    const progress: unknown[] = [];
    await client.callTool("t", {}, { onprogress: (p) => progress.push(p) });
    await server.log("emergency", "nor this");
    await client.ping();
    expect(logged).toEqual([]);
    expect(progress).toEqual([]);
    const raw = await client.request("prompts/list").catch((e) => e.code);
    expect(raw).toBe("E_CAPABILITY");
  });
});

describe("switched on", () => {
  test("roots: declared with listChanged, answered, and changes notified", async () => {
    let changed = 0;
    const { client, session } = await clientOnServer({ roots: [{ uri: "file:///data", name: "data" }] });
    expect(session.clientCapabilities).toEqual({ roots: { listChanged: true } });
    expect(await session.listRoots()).toEqual([{ uri: "file:///data", name: "data" }]);
    const notified = new Promise<void>((r) => session.events.on("rootsListChanged", () => (changed++, r())));
    await client.setRoots([{ uri: "file:///other" }]);
    await notified;
    expect(changed).toBe(1);
    expect(await session.listRoots()).toEqual([{ uri: "file:///other" }]);
  });

  test("sampling: declared and serviced by the handler", async () => {
    const seen: unknown[] = [];
    const { session } = await clientOnServer({
      sampling: async (params) => {
        seen.push(params.maxTokens);
        return { role: "assistant", content: { type: "text", text: "Paris" }, model: "m", stopReason: "endTurn" };
      },
    });
    expect(session.clientCapabilities).toEqual({ sampling: {} });
    const r = await session.createMessage({ messages: [{ role: "user", content: { type: "text", text: "capital?" } }], maxTokens: 5 });
    expect(r).toMatchObject({ role: "assistant", content: { type: "text", text: "Paris" }, model: "m" });
    expect(seen).toEqual([5]);
  });

  test('elicitation "decline": declared (form), answered decline; an undeclared mode is -32602', async () => {
    const { session } = await clientOnServer({ elicitation: "decline" });
    expect(session.clientCapabilities).toEqual({ elicitation: { form: {} } });
    const form = { message: "name?", requestedSchema: { type: "object" as const, properties: { n: { type: "string" as const } } } };
    expect(await session.elicit(form)).toEqual({ action: "decline" });
    const url = session.elicit({ mode: "url", message: "open", url: "https://example.com/x", elicitationId: "e1" });
    expect(await url.catch((e) => e.code)).toBe(-32602);
  });

  test("elicitation with a handler services the request", async () => {
    const { session } = await clientOnServer({
      elicitation: { handler: async () => ({ action: "accept", content: { n: "Ada" } }), modes: ["form", "url"] },
    });
    expect(session.clientCapabilities).toEqual({ elicitation: { form: {}, url: {} } });
    const form = { message: "name?", requestedSchema: { type: "object" as const, properties: { n: { type: "string" as const } } } };
    expect(await session.elicit(form)).toEqual({ action: "accept", content: { n: "Ada" } });
  });

  test("server: prompts, completions and logging declared when switched on", async () => {
    const { client, server } = await clientOnServer({ prompts: true, completion: true }, (s) => {
      s.options.capabilities = { prompts: true, completion: true, serverNotifications: true };
      s.prompt({ name: "p" }, () => ({ messages: [] }), { complete: { a: () => ["x"] } });
    });
    expect(server.capabilities()).toEqual({ prompts: { listChanged: true }, completions: {}, logging: {} });
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(["p"]);
  });
});
