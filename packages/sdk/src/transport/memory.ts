/**
 * An in-memory linked pair of transports, for unit tests and for running a client and a server in one
 * process. Messages are structured-cloned so neither side can mutate the other's objects, and delivered
 * asynchronously (a microtask later) like a real channel.
 */
import type { JsonRpcMessage } from "../wire/jsonrpc.ts";
import { AgentdError } from "../wire/errors.ts";
import type { MessageExtra, SendOptions, Transport } from "./types.ts";

/** One end of an in-memory pair. */
export class MemoryTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: Transport["onframeerror"];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  sessionId?: string | undefined;
  private peer?: MemoryTransport;
  private started = false;
  private closed = false;
  private queue: unknown[] = [];

  /** Create a linked pair: what one sends, the other receives. */
  static createPair(): [MemoryTransport, MemoryTransport] {
    const a = new MemoryTransport();
    const b = new MemoryTransport();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", "MemoryTransport already started");
    this.started = true;
    const pending = this.queue;
    this.queue = [];
    for (const m of pending) this.onmessage?.(m);
  }

  async send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (this.closed) throw new AgentdError("E_CONNECTION_CLOSED", "transport is closed");
    const peer = this.peer;
    if (!peer || peer.closed) throw new AgentdError("E_CONNECTION_CLOSED", "peer is closed");
    const copy = structuredClone(message);
    queueMicrotask(() => peer.deliver(copy));
  }

  private deliver(message: unknown): void {
    if (this.closed) return;
    if (!this.started) this.queue.push(message);
    else this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    const peer = this.peer;
    if (peer && !peer.closed) await peer.close();
  }
}
