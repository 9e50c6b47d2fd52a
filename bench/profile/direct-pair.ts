/**
 * Profiling aid: a transport pair whose `send` hands the same object to the other end a microtask later
 * (no copy, no framing, no syscall), so a profile of the request path sees only the request path.
 */

/** One end of the pair. */
export class Direct {
  onmessage?: (message: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  peer!: Direct;
  closed = false;
  async start(): Promise<void> {}
  async send(message: unknown): Promise<void> {
    if (this.closed) throw new Error("closed");
    const peer = this.peer;
    queueMicrotask(() => peer.onmessage?.(message));
  }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
    await this.peer.close();
  }
}

/** Two connected ends. */
export function directPair(): [Direct, Direct] {
  const a = new Direct();
  const b = new Direct();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
