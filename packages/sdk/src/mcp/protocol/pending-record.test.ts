import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { McpError } from "../../wire/errors.ts";
import type { AgentdError } from "../../wire/errors.ts";
import { Protocol } from "./protocol.ts";
import { RawPeer } from "../__fixtures__/test-peer.ts";

// The pending record of an outbound request (pending-requests.ts): its promise is made without a closure,
// a lone request sits in its own slot instead of the map, and a result can be mapped before it settles
// the promise. These pin what each of those must keep: every request settles with its own outcome, the
// table counts and closes in sending order, and a mapped result fails as a `.then` on it would.

const open: Protocol[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function setup() {
  const [a, b] = MemoryTransport.createPair();
  const protocol = new Protocol(a);
  open.push(protocol);
  await protocol.start();
  const raw = await RawPeer.attach(b);
  return { protocol, raw };
}

type Outcome = { ok: true; value: unknown } | { ok: false; code: unknown; message: string };
const settled = (p: Promise<unknown>): Promise<Outcome> =>
  p.then(
    (value) => ({ ok: true, value }),
    (error: AgentdError) => ({ ok: false, code: error.code, message: error.message }),
  );

describe("the pending record of an outbound request", () => {
  test("requests answered out of order each settle with their own result or error", async () => {
    const { protocol, raw } = await setup();
    const sent = [1, 2, 3, 4].map(() => settled(protocol.request("tools/list")));
    await raw.next((m) => m.method === "tools/list" && m.id === 4);
    await raw.respond(3, { tools: [], nextCursor: "three" });
    await raw.send({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "one failed" } });
    await raw.respond(4, { tools: [], nextCursor: "four" });
    await raw.respond(2, { tools: [], nextCursor: "two" });
    expect(await Promise.all(sent)).toEqual([
      { ok: false, code: -32000, message: "one failed" },
      { ok: true, value: { tools: [], nextCursor: "two" } },
      { ok: true, value: { tools: [], nextCursor: "three" } },
      { ok: true, value: { tools: [], nextCursor: "four" } },
    ]);
    expect(protocol.load.outbound).toBe(0);
  });

  test("the table counts every request in flight and, on close, rejects them in sending order", async () => {
    const { protocol, raw } = await setup();
    const order: string[] = [];
    const watch = (name: string, p: Promise<unknown>) => p.catch((e: AgentdError) => void order.push(`${name} ${e.code}`));
    // a is sent alone; b and c while it is in flight; a is answered; d is sent while b and c still are.
    const a = protocol.request("tools/list");
    const rest = [watch("b", protocol.request("tools/list")), watch("c", protocol.request("tools/list"))];
    expect(protocol.load.outbound).toBe(3);
    await raw.next((m) => m.method === "tools/list" && m.id === 3);
    await raw.respond(1, { tools: [] });
    expect(await a).toEqual({ tools: [] });
    expect(protocol.load.outbound).toBe(2);
    rest.push(watch("d", protocol.request("tools/list")));
    expect(protocol.load.outbound).toBe(3);
    // An answer to one in the middle finds it.
    await raw.respond(3, { tools: [] });
    await raw.next((m) => m.method === "tools/list" && m.id === 4);
    expect(protocol.load.outbound).toBe(2);
    await protocol.close();
    await Promise.all(rest);
    expect(order).toEqual(["b E_CONNECTION_CLOSED", "d E_CONNECTION_CLOSED"]);
    expect(protocol.load.outbound).toBe(0);
  });

  test("a lone request answered, then the next: each finds its own record", async () => {
    const { protocol, raw } = await setup();
    for (let i = 1; i <= 5; i++) {
      const p = protocol.request("tools/list");
      expect(protocol.load.outbound).toBe(1);
      await raw.next((m) => m.method === "tools/list" && m.id === i);
      // A response to an id that is not in flight leaves the one that is alone.
      await raw.respond(i + 100, { tools: [] });
      await raw.respond(i, { tools: [], nextCursor: String(i) });
      expect(await p).toEqual({ tools: [], nextCursor: String(i) });
      expect(protocol.load.outbound).toBe(0);
    }
  });
});

describe("a mapped result", () => {
  test("settles the request with what the map makes of the result, a promise included", async () => {
    const { protocol, raw } = await setup();
    const plain = protocol.request("tools/list", undefined, {}, (r) => ({ mapped: r }));
    const promised = protocol.request("tools/list", undefined, {}, (r) => Promise.resolve({ later: r }));
    await raw.next((m) => m.method === "tools/list" && m.id === 2);
    await raw.respond(1, { tools: [] });
    await raw.respond(2, { tools: [], nextCursor: "c" });
    expect(await plain).toEqual({ mapped: { tools: [] } });
    expect(await promised).toEqual({ later: { tools: [], nextCursor: "c" } });
  });

  test("a map that throws rejects the request (never a throw in the peer) and leaves nothing behind", async () => {
    const { protocol, raw } = await setup();
    const failing = settled(
      protocol.request("tools/list", undefined, {}, () => {
        throw new McpError(-32001, "refused by the map");
      }),
    );
    await raw.next((m) => m.method === "tools/list");
    await raw.respond(1, { tools: [] });
    expect(await failing).toEqual({ ok: false, code: -32001, message: "refused by the map" });
    expect(protocol.load.outbound).toBe(0);
    // The peer goes on: the next request is answered.
    const next = protocol.request("ping");
    await raw.next((m) => m.method === "ping");
    await raw.respond(2, {});
    expect(await next).toEqual({});
  });

  test("is not called for an error response, an invalid result, a timeout or an abort", async () => {
    const { protocol, raw } = await setup();
    let calls = 0;
    const map = (r: Record<string, unknown>) => {
      calls++;
      return r;
    };
    const ac = new AbortController();
    const outcomes = [
      settled(protocol.request("tools/list", undefined, {}, map)),
      settled(protocol.request("tools/list", undefined, {}, map)),
      settled(protocol.request("tools/list", undefined, { timeoutMs: 30 }, map)),
      settled(protocol.request("tools/list", undefined, { signal: ac.signal }, map)),
    ];
    await raw.next((m) => m.method === "tools/list" && m.id === 4);
    await raw.send({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "no" } });
    await raw.respond(2, { tools: "not a list" });
    ac.abort();
    const codes = (await Promise.all(outcomes)).map((o) => (o.ok ? "ok" : o.code));
    expect(codes).toEqual([-32000, "E_UPSTREAM", "E_TIMEOUT", "E_ABORTED"]);
    expect(calls).toBe(0);
  });
});
