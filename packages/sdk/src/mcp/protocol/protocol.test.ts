import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { AgentdError, McpError, parseError } from "../../wire/errors.ts";
import { memoryLogger } from "../../log.ts";
import type { ProtocolRevision } from "../../wire/codec.ts";
import { Protocol } from "./protocol.ts";
import { TOO_MANY_REQUESTS } from "./inbound-requests.ts";
import { RawPeer, record } from "../__fixtures__/test-peer.ts";

const open: Protocol[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function setup(options: { revision?: ProtocolRevision; maxInflightRequests?: number } = {}) {
  const [a, b] = MemoryTransport.createPair();
  const rec = record(a);
  const logger = memoryLogger();
  const protocol = new Protocol(a, { logger, ...options });
  open.push(protocol);
  await protocol.start();
  const raw = await RawPeer.attach(b);
  return { protocol, raw, logger, rec, transport: a };
}

/** A handler that runs until the request's signal aborts. */
function blockUntilAborted(seen: { aborted?: unknown }) {
  return (_p: Record<string, unknown>, ctx: { signal: AbortSignal }) =>
    new Promise<Record<string, unknown>>((resolve) => {
      ctx.signal.addEventListener("abort", () => {
        seen.aborted = ctx.signal.reason;
        resolve({ late: true });
      });
    });
}

describe("inbound error paths", () => {
  test("ping is answered with an empty result", async () => {
    const { raw } = await setup();
    expect(await raw.request("ping")).toEqual({ jsonrpc: "2.0", id: 1000, result: {} });
  });

  test("invalid messages get -32600, addressed to the id when it can be read (else without id)", async () => {
    const { raw } = await setup();
    await raw.send({ jsonrpc: "1.0", id: 7, method: "ping" });
    expect((await raw.next((m) => m.id === 7)).error.code).toBe(-32600);
    await raw.send("hello");
    const e = await raw.next((m) => m.id == null);
    expect(e.error.code).toBe(-32600);
    await raw.send({ jsonrpc: "2.0", id: 8, method: "ping", params: [1] });
    expect((await raw.next((m) => m.id === 8)).error.code).toBe(-32600);
  });

  test("unknown method → -32601; params failing the codec → -32602", async () => {
    const { protocol, raw } = await setup();
    expect((await raw.request("no/such/method")).error).toMatchObject({ code: -32601, message: "Method not found: no/such/method" });
    protocol.setRequestHandler("logging/setLevel", () => ({}));
    const bad = await raw.request("logging/setLevel", { level: "loud" });
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toContain("level");
    expect((await raw.request("logging/setLevel", { level: "info" })).result).toEqual({});
  });

  test("a handler's McpError reaches the peer as is; other throws are -32603 without internals", async () => {
    const { protocol, raw, logger } = await setup();
    protocol.setRequestHandler("resources/read", () => {
      throw new McpError(-32002, "Resource not found", { uri: "x://y" });
    });
    protocol.setRequestHandler("tools/list", () => {
      throw new Error("db password is hunter2");
    });
    expect((await raw.request("resources/read", { uri: "x://y" })).error).toEqual({
      code: -32002,
      message: "Resource not found",
      data: { uri: "x://y" },
    });
    const internal = await raw.request("tools/list");
    expect(internal.error).toEqual({ code: -32603, message: "Internal error" });
    expect(JSON.stringify(internal)).not.toContain("hunter2");
    expect(logger.records.some((r) => r.event === "mcp.handler_error")).toBe(true);
  });

  test("a frame error from the transport is answered without an id", async () => {
    const { raw, transport } = await setup();
    transport.onframeerror?.({ error: parseError("unexpected token"), recoverable: true });
    const e = await raw.next((m) => m.id == null);
    expect(e.error.code).toBe(-32700);
    expect((await raw.request("ping")).result).toEqual({});
  });

  test("responses for unknown ids are logged and dropped; repeats make one summary line, not a line each", async () => {
    const { protocol, raw, logger } = await setup();
    await raw.send({ jsonrpc: "2.0", id: 424242, result: {} });
    await raw.send({ jsonrpc: "2.0", id: 424243, error: { code: -1, message: "x" } });
    for (let id = 0; id < 1000; id++) await raw.send({ jsonrpc: "2.0", id: 500_000 + id, result: {} });
    expect((await raw.request("ping")).result).toEqual({});
    const warned = () => logger.records.filter((r) => r.event === "mcp.unknown_response");
    expect(warned()).toEqual([expect.objectContaining({ level: "warn", id: 424242 })]);
    // The rest are counted and summed up when the window ends, or, as here, when the connection closes.
    await protocol.close();
    expect(warned()).toEqual([
      expect.objectContaining({ id: 424242 }),
      expect.objectContaining({ level: "warn", id: 500_999, repeated: 1001, windowMs: 60_000 }),
    ]);
  });

  test("a duplicate in-flight request id is refused", async () => {
    const { protocol, raw } = await setup();
    const seen: { aborted?: unknown } = {};
    protocol.setRequestHandler("tools/list", blockUntilAborted(seen));
    await raw.send({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    await raw.send({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    const e = await raw.next((m) => m.id === 5);
    expect(e.error.code).toBe(-32600);
    expect(e.error.message).toContain("already in use");
  });

  test("requests in flight together: duplicates refused, cancellation and close reach each one, whichever came first", async () => {
    const { protocol, raw } = await setup();
    const aborted = new Map<number, unknown>();
    const release = new Map<number, () => void>();
    protocol.setRequestHandler(
      "tools/list",
      (_p, ctx) =>
        new Promise<Record<string, unknown>>((resolve) => {
          release.set(ctx.requestId as number, () => resolve({ tools: [] }));
          ctx.signal.addEventListener("abort", () => {
            aborted.set(ctx.requestId as number, ctx.signal.reason);
            resolve({ late: true });
          });
        }),
    );
    for (const id of [1, 2, 3]) await raw.send({ jsonrpc: "2.0", id, method: "tools/list" });
    for (const id of [1, 3]) await raw.send({ jsonrpc: "2.0", id, method: "tools/list" });
    const dupes = [await raw.next((m) => m.id === 1 && "error" in m), await raw.next((m) => m.id === 3 && "error" in m)];
    for (const d of dupes) expect(d.error.message).toContain("already in use");
    await raw.notify("notifications/cancelled", { requestId: 2, reason: "not needed" });
    release.get(1)!();
    expect((await raw.next((m) => m.id === 1 && "result" in m)).result).toEqual({ tools: [] });
    await raw.send({ jsonrpc: "2.0", id: 4, method: "tools/list" }); // the first finished: 4 takes its place
    await raw.send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    expect((await raw.next((m) => m.id === 4 && "error" in m)).error.message).toContain("already in use");
    expect(protocol.load.inbound).toBe(2);
    await protocol.close();
    expect([...aborted.keys()].sort()).toEqual([2, 3, 4]);
    expect(String((aborted.get(2) as Error).message)).toContain("not needed");
    for (const id of [3, 4]) expect((aborted.get(id) as { code?: string }).code).toBe("E_CONNECTION_CLOSED");
    expect(raw.received.some((m) => m.id === 2 && !("method" in m))).toBe(false);
  });

  test("past the in-flight limit the peer gets a clear error, and the limit frees up", async () => {
    const { protocol, raw } = await setup({ maxInflightRequests: 2 });
    const release: (() => void)[] = [];
    let hold = true;
    protocol.setRequestHandler("tools/list", () => (hold ? new Promise((r) => release.push(() => r({ tools: [] }))) : { tools: [] }));
    for (const id of [1, 2, 3]) await raw.send({ jsonrpc: "2.0", id, method: "tools/list" });
    const busy = await raw.next((m) => m.id === 3);
    expect(busy.error.code).toBe(TOO_MANY_REQUESTS);
    expect(busy.error.message).toContain("limit 2");
    hold = false;
    for (const r of release) r();
    await raw.next((m) => m.id === 2);
    expect((await raw.request("tools/list")).result).toEqual({ tools: [] });
  });

  test("a throwing notification handler does not disturb the peer", async () => {
    const { protocol, raw, logger } = await setup();
    protocol.setNotificationHandler("notifications/initialized", () => {
      throw new Error("boom");
    });
    await raw.notify("notifications/initialized");
    expect((await raw.request("ping")).result).toEqual({});
    expect(logger.records.some((r) => r.event === "mcp.notification_handler_error")).toBe(true);
  });
});

describe("batches", () => {
  test("2025-11-25 refuses a batch with one -32600 without an id", async () => {
    const { raw } = await setup();
    await raw.send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    const e = await raw.next();
    expect(Array.isArray(e)).toBe(false);
    expect(e).toMatchObject({ error: { code: -32600 } });
    expect(e.id == null).toBe(true);
    expect(e.error.message).toContain("2025-11-25");
  });

  test("2025-03-26 answers a batch with an array of its responses, related to its first request", async () => {
    const { raw, rec } = await setup({ revision: "2025-03-26" });
    await raw.send([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "no/such" },
      { jsonrpc: "1.0", id: 3, method: "ping" },
    ]);
    const reply = await raw.next();
    expect(Array.isArray(reply)).toBe(true);
    expect(reply).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: no/such" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32600, message: 'Invalid request: jsonrpc must be "2.0"' } },
    ]);
    expect(rec.sent.find((s) => Array.isArray(s.message))?.options?.relatedRequestId).toBe(1);
  });

  test("2025-03-26: a batch of notifications gets no reply; an empty batch is invalid", async () => {
    const { raw } = await setup({ revision: "2025-03-26" });
    await raw.send([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
    await raw.send([]);
    const first = await raw.next();
    expect(first).toMatchObject({ error: { code: -32600, message: "Invalid request: empty batch" } });
    expect(first.id == null).toBe(true);
    expect(raw.received.length).toBe(1);
  });
});

describe("outbound requests", () => {
  test("an error response rejects with McpError", async () => {
    const { protocol, raw } = await setup();
    const p = protocol.request("tools/list");
    const req = await raw.nextRequest("tools/list");
    await raw.send({ jsonrpc: "2.0", id: req.id, error: { code: -32601, message: "nope" } });
    const e = await p.catch((x) => x);
    expect(McpError.isInstance(e)).toBe(true);
    expect(e.code).toBe(-32601);
  });

  test("a result failing the codec rejects with E_UPSTREAM; a malformed response fails its request at once", async () => {
    const { protocol, raw } = await setup();
    const p1 = protocol.request("tools/list");
    await raw.respond((await raw.nextRequest("tools/list")).id, { tools: "not a list" });
    expect(await p1.catch((e) => e.code)).toBe("E_UPSTREAM");
    const p2 = protocol.request("resources/list");
    const req = await raw.nextRequest("resources/list");
    await raw.send({ jsonrpc: "2.0", id: req.id, result: "string" });
    expect(await p2.catch((e) => e.code)).toBe("E_UPSTREAM");
    expect(await raw.next((m) => m.id == null && m.error)).toMatchObject({ error: { code: -32600 } });
  });

  test("requests that fail (send error, malformed or error response) leave no bookkeeping behind", async () => {
    const failing = {
      async start() {},
      async send() {
        throw new Error("EPIPE");
      },
      async close() {},
    };
    const p = new Protocol(failing);
    open.push(p);
    await p.start();
    for (let i = 0; i < 1000; i++) {
      const e = await p.request("tools/call", { name: "x" }, { validateResult: false }).catch((x) => x);
      expect(e).toBeInstanceOf(Error);
    }
    expect(p.unvalidatedCount).toBe(0);
    expect(p.load.outbound).toBe(0);

    const { protocol, raw } = await setup();
    /** Send a task-style call and return its promise and the request as the peer saw it. */
    const call = async () => {
      const from = raw.received.length;
      const promise = protocol.request("tools/call", { name: "x" }, { validateResult: false });
      return { promise, req: await raw.next((m) => m.method === "tools/call" && "id" in m, from) };
    };
    const malformed = await call();
    await raw.send({ jsonrpc: "2.0", id: malformed.req.id, result: "not an object" });
    expect(await malformed.promise.catch((e) => e.code)).toBe("E_UPSTREAM");
    const refused = await call();
    await raw.send({ jsonrpc: "2.0", id: refused.req.id, error: { code: -32000, message: "no" } });
    expect(await refused.promise.catch((e) => e.code)).toBe(-32000);
    const answered = await call();
    await raw.respond(answered.req.id, { task: { taskId: "t1", status: "working" } });
    expect(await answered.promise).toEqual({ task: { taskId: "t1", status: "working" } });
    expect(protocol.unvalidatedCount).toBe(0);
  });

  test("a timeout past setTimeout's 2^31-1 ms, or Infinity, waits for the response instead of failing at once", async () => {
    const { protocol, raw } = await setup();
    for (const [timeoutMs, maxTotalTimeoutMs] of [
      [3_000_000_000, 3_000_000_000],
      [Infinity, Infinity],
    ] as const) {
      let settled = false;
      const from = raw.received.length;
      const p = protocol.request("tools/list", undefined, { timeoutMs, maxTotalTimeoutMs }).finally(() => (settled = true));
      const req = await raw.next((m) => m.method === "tools/list" && "id" in m, from);
      await new Promise((r) => setTimeout(r, 30)); // an overflowed timer fires after 1 ms
      expect(settled).toBe(false);
      await raw.respond(req.id, { tools: [] });
      expect(await p).toEqual({ tools: [] });
    }
    expect(raw.received.some((m) => m.method === "notifications/cancelled")).toBe(false);
  });

  test("timeout rejects with E_TIMEOUT and sends notifications/cancelled", async () => {
    const { protocol, raw } = await setup();
    const e = await protocol.request("tools/list", undefined, { timeoutMs: 30 }).catch((x) => x);
    expect(AgentdError.isInstance(e) && e.code).toBe("E_TIMEOUT");
    const req = await raw.nextRequest("tools/list");
    const cancel = await raw.next((m) => m.method === "notifications/cancelled");
    expect(cancel.params).toEqual({ requestId: req.id, reason: "request timed out" });
  });

  test("caller abort rejects with E_ABORTED and sends notifications/cancelled", async () => {
    const { protocol, raw } = await setup();
    const ac = new AbortController();
    const p = protocol.request("tools/list", undefined, { signal: ac.signal });
    const req = await raw.nextRequest("tools/list");
    ac.abort("user hit stop");
    const e = await p.catch((x) => x);
    expect(e.code).toBe("E_ABORTED");
    expect(e.message).toContain("user hit stop");
    const cancel = await raw.next((m) => m.method === "notifications/cancelled");
    expect(cancel.params.requestId).toBe(req.id);
    // A late response is dropped quietly.
    await raw.respond(req.id, { tools: [] });
    expect((await raw.request("ping")).result).toEqual({});
  });

  test("initialize is never cancelled, even on timeout", async () => {
    const { protocol, raw } = await setup();
    const e = await protocol.request("initialize", {}, { timeoutMs: 20 }).catch((x) => x);
    expect(e.code).toBe("E_TIMEOUT");
    await protocol.notify("notifications/initialized");
    await raw.next((m) => m.method === "notifications/initialized");
    expect(raw.received.map((m) => m.method)).toEqual(["initialize", "notifications/initialized"]);
  });

  test("transport close rejects pending requests with E_CONNECTION_CLOSED", async () => {
    const { protocol, raw } = await setup();
    const p = protocol.request("tools/list");
    await raw.nextRequest("tools/list");
    await raw.transport.close();
    expect(await p.catch((e) => e.code)).toBe("E_CONNECTION_CLOSED");
    expect(await protocol.request("ping").catch((e) => e.code)).toBe("E_CONNECTION_CLOSED");
  });

  test("onprogress attaches a progressToken and receives progress", async () => {
    const { protocol, raw } = await setup();
    const got: number[] = [];
    const p = protocol.request("tools/list", { _meta: { keep: 1 } }, { onprogress: (x) => got.push(x.progress), meta: { extra: "y" } });
    const req = await raw.nextRequest("tools/list");
    expect(req.params._meta).toEqual({ keep: 1, extra: "y", progressToken: req.id });
    await raw.notify("notifications/progress", { progressToken: req.id, progress: 1, total: 2 });
    await raw.notify("notifications/progress", { progressToken: req.id, progress: 2, total: 2 });
    await raw.respond(req.id, { tools: [] });
    await p;
    expect(got).toEqual([1, 2]);
  });
});

describe("outbound _meta", () => {
  test("merged by rising precedence (envelope, params' own, options' meta, progress token); the caller's objects are never changed", async () => {
    const { protocol, raw } = await setup();
    // Never answered: each ends with the close below, as the test asserts.
    const unanswered: Promise<unknown>[] = [];
    const own = { keep: 1, over: "own" };
    const extra = { over: "extra", run: "r1" };
    protocol.setRequestMeta({ env: true, over: "env" });
    unanswered.push(
      protocol.request("tools/list", { cursor: "c", _meta: own }, { meta: extra, onprogress: () => {} }).catch((e: unknown) => e),
    );
    const merged = await raw.next((m) => m.method === "tools/list" && m.id === 1);
    expect(merged.params).toEqual({ cursor: "c", _meta: { env: true, keep: 1, over: "extra", run: "r1", progressToken: 1 } });
    protocol.setRequestMeta(undefined);
    unanswered.push(protocol.request("tools/list", { cursor: "c" }, { meta: extra }).catch((e: unknown) => e));
    expect((await raw.next((m) => m.method === "tools/list" && m.id === 2)).params).toEqual({ cursor: "c", _meta: extra });
    unanswered.push(protocol.request("tools/list", { cursor: "c", _meta: own }).catch((e: unknown) => e));
    expect((await raw.next((m) => m.method === "tools/list" && m.id === 3)).params).toEqual({ cursor: "c", _meta: own });
    unanswered.push(protocol.request("tools/list", undefined, { meta: {} }).catch((e: unknown) => e));
    expect("params" in (await raw.next((m) => m.method === "tools/list" && m.id === 4))).toBe(false);
    unanswered.push(protocol.request("tools/list", { cursor: "c" }, { meta: {} }).catch((e: unknown) => e));
    expect((await raw.next((m) => m.method === "tools/list" && m.id === 5)).params).toEqual({ cursor: "c" });
    expect(own).toEqual({ keep: 1, over: "own" });
    expect(extra).toEqual({ over: "extra", run: "r1" });
    await protocol.close();
    for (const outcome of await Promise.all(unanswered)) expect((outcome as AgentdError).code).toBe("E_CONNECTION_CLOSED");
  });
});

describe("inbound cancellation and context", () => {
  test("notifications/cancelled aborts the handler's signal and no response is sent", async () => {
    const { protocol, raw } = await setup();
    const seen: { aborted?: unknown } = {};
    protocol.setRequestHandler("tools/list", blockUntilAborted(seen));
    await raw.send({ jsonrpc: "2.0", id: 77, method: "tools/list" });
    await raw.notify("notifications/cancelled", { requestId: 77, reason: "changed my mind" });
    // The handler resolves right after the abort; any response would arrive before this ping's.
    expect((await raw.request("ping")).result).toEqual({});
    expect(AgentdError.isInstance(seen.aborted)).toBe(true);
    expect(String((seen.aborted as Error).message)).toContain("changed my mind");
    expect(raw.received.some((m) => m.id === 77)).toBe(false);
  });

  test("messages sent from a handler carry relatedRequestId; progress only with a token", async () => {
    const { protocol, raw, rec } = await setup();
    protocol.setRequestHandler("tools/list", async (_p, ctx) => {
      await ctx.sendProgress(1, 2, "half");
      await ctx.sendNotification("notifications/message", { level: "info", data: "x" });
      return { tools: [] };
    });
    await raw.send({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: { progressToken: "tok" } } });
    await raw.next((m) => m.id === 9);
    const progress = rec.sent.find((s) => s.message.method === "notifications/progress");
    expect(progress?.message.params).toEqual({ progressToken: "tok", progress: 1, total: 2, message: "half" });
    expect(progress?.options?.relatedRequestId).toBe(9);
    expect(rec.sent.find((s) => s.message.method === "notifications/message")?.options?.relatedRequestId).toBe(9);
    expect(rec.sent.find((s) => s.message.id === 9)?.options?.relatedRequestId).toBe(9);
    await raw.send({ jsonrpc: "2.0", id: 10, method: "tools/list" });
    await raw.next((m) => m.id === 10);
    expect(rec.sent.filter((s) => s.message.method === "notifications/progress").length).toBe(1);
  });

  test("a request sent from a handler is aborted with it", async () => {
    const { protocol, raw } = await setup();
    let inner: Promise<unknown> | undefined;
    protocol.setRequestHandler("tools/list", (_p, ctx) => {
      inner = ctx.sendRequest("roots/list").catch((e) => e.code);
      return new Promise(() => {});
    });
    await raw.send({ jsonrpc: "2.0", id: 11, method: "tools/list" });
    const sub = await raw.nextRequest("roots/list");
    await raw.notify("notifications/cancelled", { requestId: 11 });
    expect(await inner).toBe("E_ABORTED");
    const cancel = await raw.next((m) => m.method === "notifications/cancelled");
    expect(cancel.params.requestId).toBe(sub.id);
  });
});

describe("hostile input", () => {
  test("nothing a peer sends crashes the peer", async () => {
    const { protocol, raw, logger } = await setup();
    protocol.setRequestHandler("tools/list", () => ({ tools: [] }));
    protocol.setRequestHandler("tools/call", () => undefined as unknown as Record<string, unknown>);
    const pending = protocol.request("resources/list").catch((e) => e.code);
    const pendingId = (await raw.nextRequest("resources/list")).id;
    const hostile: unknown[] = [
      null,
      42,
      true,
      [],
      [[{ jsonrpc: "2.0", id: 1, method: "ping" }]],
      { jsonrpc: "2.0" },
      { jsonrpc: "2.0", id: {}, method: "ping" },
      { jsonrpc: "2.0", id: 1.5e308 * 10, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 7 },
      { jsonrpc: "2.0", id: 1, method: "ping", params: null },
      { jsonrpc: "2.0", id: 2, method: "__proto__" },
      { jsonrpc: "2.0", id: 3, method: "constructor" },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "x" } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: {} } },
      { jsonrpc: "2.0", method: "notifications/cancelled" },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: [1], progress: "x" } },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: pendingId, progress: 1 } },
      { jsonrpc: "2.0", id: String(pendingId), result: {} },
      { jsonrpc: "2.0", id: 5, error: { code: "x", message: 1 } },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "your frame was bad" } },
      { jsonrpc: "2.0", error: { code: -32700, message: "your frame was bad, no id" } },
      { jsonrpc: "2.0", id: 6, result: {}, error: { code: 1, message: "" } },
      { jsonrpc: "2.0", method: "x".repeat(100_000) },
    ];
    for (const h of hostile) await raw.send(h);
    expect((await raw.request("ping")).result).toEqual({});
    expect((await raw.request("tools/list")).result).toEqual({ tools: [] });
    const internal = raw.received.find((m) => m.id === 4);
    expect(internal?.error).toEqual({ code: -32603, message: "Internal error" });
    expect(raw.received.find((m) => m.id === 2)?.error.code).toBe(-32601);
    expect(raw.received.find((m) => m.id === 3)?.error.code).toBe(-32601);
    await raw.respond(pendingId, { resources: [] });
    expect(await pending).toEqual({ resources: [] });
    expect(logger.records.some((r) => r.event === "mcp.peer_error")).toBe(true);
  });
});
