/**
 * A transport's `send` that took the message at once answers the shared settled {@link SENT}; the protocol
 * then attaches no rejection handler (none can be needed), on requests and on replies alike. A send that
 * answers any other promise is still watched: its failure fails the request.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { SENT, type MessageExtra, type Transport } from "../../transport/types.ts";
import { classify, type JsonRpcMessage } from "../../wire/jsonrpc.ts";
import { Protocol } from "./protocol.ts";

/** A transport that records what it is given and answers `answer()` for each send. */
class Recorder implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: JsonRpcMessage[] = [];
  constructor(private readonly answer: () => Promise<void>) {}
  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  send(message: JsonRpcMessage): Promise<void> {
    this.sent.push(message);
    return this.answer();
  }
}

const open: Protocol[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

async function peer(answer: () => Promise<void>) {
  const transport = new Recorder(answer);
  const protocol = new Protocol(transport);
  open.push(protocol);
  await protocol.start();
  return { protocol, transport };
}

describe("a send taken at once", () => {
  test("gets no handler: the request and the reply to a ping attach nothing to SENT", async () => {
    const attached: string[] = [];
    const own = SENT as unknown as Record<string, unknown>;
    own.then = (...args: unknown[]) => (attached.push("then"), Promise.prototype.then.apply(SENT, args as never));
    own.catch = (...args: unknown[]) => (attached.push("catch"), Promise.prototype.catch.apply(SENT, args as never));
    try {
      const { protocol, transport } = await peer(() => SENT);
      const answered = protocol.request("ping");
      transport.onmessage?.({ jsonrpc: "2.0", id: 7, method: "ping" });
      await Promise.resolve();
      transport.onmessage?.({ jsonrpc: "2.0", id: 0, result: {} });
      expect(await answered).toEqual({});
      expect(transport.sent).toEqual([
        { jsonrpc: "2.0", id: 0, method: "ping" },
        { jsonrpc: "2.0", id: 7, result: {} },
      ]);
      expect(attached).toEqual([]);
    } finally {
      delete own.then;
      delete own.catch;
    }
  });

  test("a send that fails later still fails its request", async () => {
    const { protocol } = await peer(() => Promise.reject(new Error("pipe broke")));
    const e = await protocol.request("ping").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Error);
    expect(String((e as Error).message)).toContain("pipe broke");
  });
});

describe("a classification carried by the transport", () => {
  test("is used for the very message it came with, and ignored for any other", async () => {
    const { transport } = await peer(() => SENT);
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const other = { jsonrpc: "2.0", id: 2, method: "ping" };
    // A classification of another value (a transport's mistake) must not route this one.
    transport.onmessage?.(other, { classified: classify(ping) });
    transport.onmessage?.(ping, { classified: classify(ping) });
    transport.onmessage?.({ jsonrpc: "1.0", id: 3, method: "ping" }, { classified: classify(ping) });
    await Promise.resolve();
    expect(transport.sent).toEqual([
      { jsonrpc: "2.0", id: 3, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
  });
});
