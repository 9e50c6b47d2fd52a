import { afterEach, describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { McpError } from "../../wire/errors.ts";
import { Protocol } from "./protocol.ts";
import type { ProtocolOptions } from "./protocol-options.ts";
import type { SharedHandlers } from "./handler-table.ts";
import { RawPeer } from "../__fixtures__/test-peer.ts";

// A protocol drops its inbound table whenever it goes idle, and an idle table is handed to the next peer
// that needs one (inbound-requests.ts, `open`/`recycle`): peers answering one request at a time, in turn,
// then share one table object. Each must still answer by its own settings — gate, shared handlers and
// their `finish`, in-flight limit — never by those of the peer that used the table before.

const open: Protocol[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function peer(options: ProtocolOptions) {
  const [a, b] = MemoryTransport.createPair();
  const protocol = new Protocol(a, options);
  open.push(protocol);
  await protocol.start();
  return { protocol, raw: await RawPeer.attach(b) };
}

const shared = (tag: string): SharedHandlers => ({
  requests: new Map([["tools/list", { handler: () => ({ tools: [] }), custom: false }]]),
  notifications: new Map(),
  finish: (_method, result) => ({ ...result, nextCursor: tag }),
});

describe("inbound tables handed from one idle peer to the next", () => {
  test("peers answering in turn each keep their own gate, shared handlers and finish", async () => {
    const gated = await peer({ gate: (m) => (m === "ping" ? new McpError(-32099, "gated peer refuses ping") : undefined) });
    const serverA = await peer({ shared: shared("A") });
    const serverB = await peer({ shared: shared("B") });
    const bare = await peer({});
    for (let round = 0; round < 3; round++) {
      expect((await gated.raw.request("ping")).error).toEqual({ code: -32099, message: "gated peer refuses ping" });
      expect((await serverA.raw.request("tools/list")).result).toEqual({ tools: [], nextCursor: "A" });
      expect((await bare.raw.request("ping")).result).toEqual({});
      expect((await bare.raw.request("tools/list")).error.code).toBe(-32601);
      expect((await serverB.raw.request("tools/list")).result).toEqual({ tools: [], nextCursor: "B" });
      expect((await serverA.raw.request("ping")).result).toEqual({ nextCursor: "A" });
      expect((await gated.raw.request("tools/list")).error.code).toBe(-32601);
    }
  });

  test("a peer's in-flight limit stays its own", async () => {
    let release: () => void = () => {};
    const slow: SharedHandlers = {
      requests: new Map([
        ["tools/list", { handler: () => new Promise((resolve) => (release = () => resolve({ tools: [] }))), custom: false }],
      ]),
      notifications: new Map(),
    };
    const strict = await peer({ shared: slow, maxInflightRequests: 1 });
    const roomy = await peer({ shared: slow });
    const bare = await peer({});
    for (let round = 0; round < 2; round++) {
      expect((await bare.raw.request("ping")).result).toEqual({});
      const held = strict.raw.request("tools/list");
      expect((await strict.raw.request("ping")).error.code).toBe(-32003);
      release();
      expect((await held).result).toEqual({ tools: [] });
      expect((await bare.raw.request("ping")).result).toEqual({});
      const alsoHeld = roomy.raw.request("tools/list");
      expect((await roomy.raw.request("ping")).result).toEqual({});
      release();
      expect((await alsoHeld).result).toEqual({ tools: [] });
    }
  });
});
