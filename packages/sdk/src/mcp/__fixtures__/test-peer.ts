/**
 * Test helpers (internal, used by this folder's tests only): a raw peer that writes arbitrary values into
 * one end of a memory pair and awaits what comes back, and a recorder of send options (to check
 * `relatedRequestId` routing).
 */
import type { MemoryTransport } from "../../transport/memory.ts";
import type { SendOptions } from "../../transport/types.ts";
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";

// Wire values in tests are loosely typed on purpose: the tests write and read raw frames.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Msg = any;

/** What a recorded transport sent, with the send options, and the versions it was told. */
export interface Recording {
  sent: { message: Msg; options?: SendOptions }[];
  versions: string[];
}

/** Make `transport` remember every outbound message with its options (to check `relatedRequestId`). */
export function record(transport: MemoryTransport): Recording {
  const rec: Recording = { sent: [], versions: [] };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    rec.sent.push({ message, options });
    return send(message, options);
  };
  (transport as { setProtocolVersion?: (v: string) => void }).setProtocolVersion = (v) => rec.versions.push(v);
  return rec;
}

/** The far end of a memory pair, driven by hand. */
export class RawPeer {
  readonly received: Msg[] = [];
  private waiters: { pred: (m: Msg) => boolean; from: number; resolve: (m: Msg) => void }[] = [];
  private nextId = 1_000;

  private constructor(readonly transport: MemoryTransport) {}

  /** Start `transport` as a raw peer. */
  static async attach(transport: MemoryTransport): Promise<RawPeer> {
    const peer = new RawPeer(transport);
    transport.onmessage = (m) => peer.push(m);
    await transport.start();
    return peer;
  }

  /** Write any value (valid or not) to the other side. */
  send(value: unknown): Promise<void> {
    return this.transport.send(value as JsonRpcMessage);
  }

  /** Send a request and wait for the response with its id. */
  async request(method: string, params?: Record<string, unknown>): Promise<Msg> {
    const id = this.nextId++;
    await this.send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    return this.next((m) => !Array.isArray(m) && m.id === id && !("method" in m));
  }

  /** Send a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** The first message received (at or after index `from`) that matches. */
  next(pred: (m: Msg) => boolean = () => true, from = 0): Promise<Msg> {
    const found = this.received.slice(from).find(pred);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ pred, from, resolve }));
  }

  /** The first request of `method` received. */
  nextRequest(method: string): Promise<Msg> {
    return this.next((m) => !Array.isArray(m) && m.method === method && "id" in m);
  }

  /** Answer a request. */
  respond(id: unknown, result: Record<string, unknown>): Promise<void> {
    return this.send({ jsonrpc: "2.0", id, result });
  }

  private push(m: Msg): void {
    this.received.push(m);
    const index = this.received.length - 1;
    this.waiters = this.waiters.filter((w) => {
      if (index < w.from || !w.pred(m)) return true;
      w.resolve(m);
      return false;
    });
  }
}
