/**
 * The per-session SSE event store behind `Last-Event-ID` resumption: a bounded ring of the session's recent
 * events, oldest dropped first.
 *
 * Event ids are `<stream>.<seq>`: the stream number is unique within the session and the sequence counts
 * events within that stream (0 is the priming event). So an id is unique across the session's streams and
 * names the stream it belongs to, which is how a resumption replays "on the stream that was disconnected"
 * and never another (transport spec, "Resumability and Redelivery").
 */

/** A stored event. `data` is the serialised JSON-RPC message. */
export interface StoredEvent {
  stream: number;
  seq: number;
  data: string;
}

/** Format an event id. */
export const formatEventId = (stream: number, seq: number) => `${stream}.${seq}`;

/** Parse an event id; null when it is not one of ours. */
export function parseEventId(id: string): { stream: number; seq: number } | null {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(id);
  if (!m) return null;
  return { stream: Number(m[1]), seq: Number(m[2]) };
}

/** A bounded ring buffer of events. Capacity 0 keeps nothing (resumption then replays nothing). */
export class EventStore {
  /** Grows up to `capacity` on demand: most sessions never fill it. */
  private ring: StoredEvent[] = [];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {}

  /** Number of events held. */
  get size(): number {
    return this.count;
  }

  /** Store an event, evicting the oldest when full. */
  append(stream: number, seq: number, data: string): void {
    if (this.capacity === 0) return;
    const e = { stream, seq, data };
    if (this.ring.length < this.capacity) this.ring.push(e);
    else this.ring[this.next] = e;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The held events of `stream` after sequence `seq`, oldest first. */
  after(stream: number, seq: number): StoredEvent[] {
    return this.held().filter((e) => e.stream === stream && e.seq > seq);
  }

  /** Drop the events of `stream` (it will not be resumed); the others keep their order. */
  dropStream(stream: number): void {
    const kept = this.held().filter((e) => e.stream !== stream);
    if (kept.length === this.count) return;
    this.ring = kept;
    this.count = kept.length;
    this.next = kept.length % this.capacity;
  }

  /** Every held event, oldest first. */
  private held(): StoredEvent[] {
    const out: StoredEvent[] = [];
    const start = (this.next - this.count + this.capacity) % Math.max(this.capacity, 1);
    for (let i = 0; i < this.count; i++) out.push(this.ring[(start + i) % this.capacity]!);
    return out;
  }

  /** Drop everything (the session ended). */
  clear(): void {
    this.ring = [];
    this.next = 0;
    this.count = 0;
  }
}
