/** McpClient against McpServer over an in-memory pair: lifecycle, tools, progress, timeouts, cancellation. */
import { describe, expect, test } from "bun:test";
import { MemoryTransport } from "../transport/memory.ts";
import { McpError } from "../wire/errors.ts";
import { McpClient } from "./client/client.ts";
import { RUN_ID_META_KEY } from "./protocol/meta.ts";
import { RawPeer, record } from "./__fixtures__/test-peer.ts";
import { connect, INIT, newServer, onCleanup, rawClient, useCleanup } from "./__fixtures__/test-harness.ts";

useCleanup();

describe("lifecycle and negotiation", () => {
  test("initialize: 2025-11-25, server info, instructions, initialized notification, version told to the transport", async () => {
    const server = newServer({ instructions: "be nice" });
    server.tool({ name: "t" }, () => ({ content: [] }));
    const [a, b] = MemoryTransport.createPair();
    const rec = record(a);
    const session = await server.connect(b);
    const ready = new Promise<void>((r) => session.events.on("initialized", () => r()));
    const client = new McpClient({ name: "client", version: "0.1.0" });
    onCleanup(() => client.close());
    await client.connect(a);
    await ready;
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo).toEqual({ name: "srv", version: "1.0.0" });
    expect(client.instructions).toBe("be nice");
    expect(rec.versions).toEqual(["2025-11-25"]);
    expect(session.clientInfo).toEqual({ name: "client", version: "0.1.0" });
    expect(session.isReady).toBe(true);
    expect(server.sessions()).toEqual([session]);
  });

  test("the server answers with the client's version when it speaks it, else its latest", async () => {
    const server = newServer();
    for (const [asked, answered] of [
      ["2025-06-18", "2025-06-18"],
      ["2025-03-26", "2025-03-26"],
      ["2024-11-05", "2025-11-25"],
      ["1999-01-01", "2025-11-25"],
    ]) {
      const { raw, session } = await rawClient(server);
      const r = await raw.request("initialize", { ...INIT, protocolVersion: asked });
      expect(r.result.protocolVersion).toBe(answered);
      expect(session.protocolVersion).toBe(answered as typeof session.protocolVersion);
    }
  });

  test("the client accepts 2025-06-18 and 2025-03-26 and refuses other versions, closing the transport", async () => {
    for (const version of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
      const [a, b] = MemoryTransport.createPair();
      const raw = await RawPeer.attach(b);
      const closed = new Promise<void>((r) => (b.onclose = r));
      const client = new McpClient({ name: "c", version: "0" });
      onCleanup(() => client.close());
      const connecting = client.connect(a).then(
        () => "ok",
        (e) => e,
      );
      const init = await raw.nextRequest("initialize");
      await raw.respond(init.id, { protocolVersion: version, capabilities: {}, serverInfo: { name: "x", version: "1" } });
      const outcome = await connecting;
      if (version === "2024-11-05") {
        expect(outcome.code).toBe("E_PROTOCOL_VERSION");
        expect(outcome.message).toContain('"2024-11-05"');
        await closed;
        expect(client.connected).toBe(false);
      } else {
        expect(outcome).toBe("ok");
        expect(client.protocolVersion).toBe(version as "2025-06-18");
      }
    }
  });

  test("requests before initialize and a second initialize are refused; ping is allowed", async () => {
    const server = newServer();
    server.tool({ name: "t" }, () => ({ content: [] }));
    const { raw } = await rawClient(server);
    expect((await raw.request("ping")).result).toEqual({});
    const early = await raw.request("tools/list");
    expect(early.error.code).toBe(-32600);
    expect(early.error.message).toContain("initialize");
    await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" });
    expect((await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" })).error.code).toBe(-32600);
    expect((await raw.request("tools/list")).result.tools.length).toBe(1);
    expect((await raw.request("prompts/list")).error.code).toBe(-32601);
  });

  test("closing either side ends the other: client close event, session removed", async () => {
    const server = newServer();
    const { client, session } = await connect(server);
    const clientClosed = new Promise<void>((r) => client.on("close", () => r()));
    await session.close();
    await clientClosed;
    expect(server.sessions()).toEqual([]);
    expect(await client.ping().catch((e) => e.code)).toBe("E_CONNECTION_CLOSED");
  });

  test("the client answers the server's ping", async () => {
    const { session } = await connect(newServer());
    await session.ping();
  });
});

describe("tools", () => {
  test("list, call, input validation as a tool error, unknown tool as -32602, thrown errors as tool errors", async () => {
    const server = newServer();
    server.tool(
      { name: "add", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
      (args) => ({ content: [{ type: "text", text: String((args.a as number) + (args.b as number)) }] }),
    );
    server.tool({ name: "fail" }, () => {
      throw new Error("upstream API is down");
    });
    const { client } = await connect(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["add", "fail"]);
    expect(await client.callTool("add", { a: 2, b: 3 })).toEqual({ content: [{ type: "text", text: "5" }] });
    const bad = await client.callTool("add", { a: "two" });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("$.a");
    const failed = await client.callTool("fail");
    expect(failed).toEqual({ content: [{ type: "text", text: "upstream API is down" }], isError: true });
    const unknown = await client.callTool("nope").catch((e) => e);
    expect(McpError.isInstance(unknown) && unknown.code).toBe(-32602);
  });

  test("structuredContent: returned, checked against outputSchema on both sides", async () => {
    const server = newServer();
    const outputSchema = { type: "object" as const, properties: { t: { type: "number" } }, required: ["t"] };
    server.tool({ name: "good", outputSchema }, () => ({ content: [], structuredContent: { t: 21 } }));
    server.tool({ name: "bad", outputSchema }, () => ({ content: [], structuredContent: { t: "hot" } }));
    server.tool({ name: "lying", outputSchema }, () => ({ content: [], structuredContent: { t: "hot" } }), { validateOutput: false });
    const { client } = await connect(server);
    expect((await client.callTool("good")).structuredContent).toEqual({ t: 21 });
    const bad = await client.callTool("bad");
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain("outputSchema");
    // The server skipped its own check: the client's check catches it.
    const lying = await client.callTool("lying");
    expect(lying.isError).toBe(true);
    expect(JSON.stringify(lying.content)).toContain("does not match its outputSchema");
  });

  test("the run id is in _meta of every tools/call", async () => {
    const server = newServer();
    const metas: unknown[] = [];
    server.tool({ name: "t" }, (_a, ctx) => {
      metas.push(ctx.meta[RUN_ID_META_KEY]);
      return { content: [] };
    });
    const { client, rec } = await connect(server, { runId: "run-42" });
    await client.callTool("t");
    await client.callTool("t", {}, { meta: { other: 1 } });
    await client.callTool("t", {}, { runId: "run-override", onprogress: () => {} });
    expect(metas).toEqual(["run-42", "run-42", "run-override"]);
    const calls = rec.sent.filter((s) => s.message.method === "tools/call");
    expect(calls.length).toBe(3);
    for (const c of calls) expect(typeof c.message.params._meta[RUN_ID_META_KEY]).toBe("string");
    expect(RUN_ID_META_KEY).toBe("agentd.dev/run-id");
    // A client without an explicit run id still sends a stable one.
    const other = await connect(server);
    await other.client.callTool("t");
    await other.client.callTool("t");
    expect(metas[3]).toBe(other.client.runId);
    expect(metas[4]).toBe(other.client.runId);
  });

  test("registering, updating and removing tools emits tools/list_changed, once per tick", async () => {
    const server = newServer();
    server.tool({ name: "a" }, () => ({ content: [] }));
    const { client } = await connect(server);
    let events = 0;
    let next: () => void = () => {};
    client.on("toolsListChanged", () => (events++, next()));
    const wait = () => new Promise<void>((r) => (next = r));
    let w = wait();
    const b = server.tool({ name: "b" }, () => ({ content: [] }));
    b.update({ description: "now described" });
    await w;
    await client.ping();
    expect(events).toBe(1);
    expect((await client.listTools()).find((t) => t.name === "b")?.description).toBe("now described");
    w = wait();
    b.remove();
    await w;
    expect((await client.listTools()).map((t) => t.name)).toEqual(["a"]);
  });

  test("pagination: all pages are fetched; an invalid cursor is -32602", async () => {
    const server = newServer({ pageSize: 2 });
    for (let i = 0; i < 5; i++) server.tool({ name: `t${i}` }, () => ({ content: [] }));
    for (let i = 0; i < 3; i++) server.resource({ uri: `mem://r${i}`, name: `r${i}` }, (uri) => ({ contents: [{ uri, text: "" }] }));
    const { client, rec } = await connect(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["t0", "t1", "t2", "t3", "t4"]);
    expect(rec.sent.filter((s) => s.message.method === "tools/list").length).toBe(3);
    expect((await client.listResources()).length).toBe(3);
    const { raw } = await rawClient(server);
    await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" });
    const first = await raw.request("tools/list");
    expect(first.result.tools.length).toBe(2);
    expect(typeof first.result.nextCursor).toBe("string");
    expect((await raw.request("tools/list", { cursor: "not-ours" })).error.code).toBe(-32602);
  });
});

describe("task augmentation without tasks (tasks off, server side)", () => {
  test("a task-augmented tools/call is processed normally, the task field ignored", async () => {
    const server = newServer();
    server.tool({ name: "t" }, () => ({ content: [{ type: "text", text: "sync" }] }));
    expect(server.capabilities().tasks).toBeUndefined();
    const { raw } = await rawClient(server);
    await raw.request("initialize", { ...INIT, protocolVersion: "2025-11-25" });
    const r = await raw.request("tools/call", { name: "t", arguments: {}, task: { ttl: 1000 } });
    expect(r.result).toEqual({ content: [{ type: "text", text: "sync" }] });
  });
});

describe("progress, timeouts and cancellation", () => {
  /** A server whose tool `slow` reports progress every `everyMs` until aborted or `totalMs` passed. */
  function progressServer(everyMs: number, totalMs: number, seen: { aborted: boolean; onabort?: () => void }) {
    const server = newServer({ capabilities: { serverNotifications: true } });
    server.tool({ name: "slow" }, async (_a, ctx) => {
      const start = Date.now();
      let n = 0;
      while (Date.now() - start < totalMs) {
        if (ctx.signal.aborted) {
          seen.aborted = true;
          seen.onabort?.();
          return { content: [] };
        }
        await ctx.sendProgress(++n);
        await new Promise((r) => setTimeout(r, everyMs));
      }
      return { content: [{ type: "text", text: `done after ${n}` }] };
    });
    return server;
  }

  test("progress resets the per-request timeout: the call survives several multiples of it", async () => {
    const seen = { aborted: false };
    const server = progressServer(50, 2_000, seen);
    const { client } = await connect(server);
    const progress: number[] = [];
    const start = Date.now();
    const r = await client.callTool("slow", {}, { timeoutMs: 500, onprogress: (p) => progress.push(p.progress) });
    expect(Date.now() - start).toBeGreaterThanOrEqual(2_000);
    expect(r.isError).toBeUndefined();
    expect(progress.length).toBeGreaterThan(5);
    expect(seen.aborted).toBe(false);
  });

  test("the absolute ceiling ends the call despite progress, and cancels it on the server", async () => {
    let onabort!: () => void;
    const abortSeen = new Promise<void>((r) => (onabort = r));
    const seen = { aborted: false, onabort };
    const server = progressServer(50, 60_000, seen);
    const { client } = await connect(server);
    const start = Date.now();
    const e = await client.callTool("slow", {}, { timeoutMs: 500, maxTotalTimeoutMs: 1_200, onprogress: () => {} }).catch((x) => x);
    expect(e.code).toBe("E_TIMEOUT");
    expect(e.options.data.ceiling).toBe(true);
    expect(Date.now() - start).toBeGreaterThanOrEqual(1_200);
    await abortSeen;
  });

  test("without progress the call times out; the server handler sees the cancellation", async () => {
    const server = newServer();
    let aborted!: () => void;
    const abortSeen = new Promise<void>((r) => (aborted = r));
    server.tool({ name: "hang" }, (_a, ctx) => new Promise(() => ctx.signal.addEventListener("abort", () => aborted())));
    const { client } = await connect(server);
    expect(await client.callTool("hang", {}, { timeoutMs: 50 }).catch((e) => e.code)).toBe("E_TIMEOUT");
    await abortSeen;
  });

  test("caller abort cancels the server handler", async () => {
    const server = newServer();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let reason: unknown;
    let aborted!: () => void;
    const abortSeen = new Promise<void>((r) => (aborted = r));
    server.tool({ name: "hang" }, (_a, ctx) => {
      started();
      return new Promise(() => ctx.signal.addEventListener("abort", () => ((reason = ctx.signal.reason), aborted())));
    });
    const { client } = await connect(server);
    const ac = new AbortController();
    const call = client.callTool("hang", {}, { signal: ac.signal }).catch((e) => e.code);
    await running;
    ac.abort();
    expect(await call).toBe("E_ABORTED");
    await abortSeen;
    expect(String(reason)).toContain("cancelled by the peer");
  });
});
