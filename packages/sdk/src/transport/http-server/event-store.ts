/**
 * The per-session SSE event store behind `Last-Event-ID` resumption: the session's recent events, bounded
 * in count and in bytes (the bytes charged to a server-wide {@link ReplayBudget} as well), oldest dropped
 * first.
 *
 * Event ids are `<stream>.<seq>`: the stream number is unique within the session and the sequence counts
 * events within that stream (0 is the priming event). So an id is unique across the session's streams and
 * names the stream it belongs to, which is how a resumption replays "on the stream that was disconnected"
 * and never another (transport spec, "Resumability and Redelivery").
 *
 * Sizes are counted in UTF-16 code units of the serialised message: what the string costs in memory for
 * ASCII JSON, and cheap to know.
 */
import type { BudgetedEvent, ReplayBudget } from "./replay-budget.ts";

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

/** A held event: what the store keeps, and what the budget charges. */
class HeldEvent implements StoredEvent, BudgetedEvent {
  constructor(
    readonly store: EventStore,
    readonly stream: number,
    readonly seq: number,
    public data: string,
    public bytes: number,
  ) {}
  evict(): void {
    this.store.evictOldest(this);
  }
}

/** Bounded storage of a session's events. Capacity 0 keeps nothing (resumption then replays nothing). */
export class EventStore {
  /** Oldest first. Most sessions hold a handful of events, never the bound. */
  private held: HeldEvent[] = [];
  private heldBytes = 0;
  /** Bytes held per stream: asked at every stream's end, so kept as a count, not summed by a scan. */
  private readonly streamBytes = new Map<number, number>();

  /**
   * @param capacity events kept at most
   * @param maxBytes bytes kept at most; an event larger than this is not kept at all
   * @param budget the server-wide budget these events are also charged to
   */
  constructor(
    readonly capacity: number,
    readonly maxBytes = Number.POSITIVE_INFINITY,
    private readonly budget?: ReplayBudget,
  ) {}

  /** Number of events held. */
  get size(): number {
    return this.held.length;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Store an event, evicting the oldest while over a bound. Returns false when it could not be kept at all. */
  append(stream: number, seq: number, data: string): boolean {
    const bytes = data.length;
    if (this.capacity === 0 || bytes > this.maxBytes || (this.budget && bytes > this.budget.maxBytes)) return false;
    const e = new HeldEvent(this, stream, seq, data, bytes);
    this.held.push(e);
    this.heldBytes += bytes;
    this.streamBytes.set(stream, (this.streamBytes.get(stream) ?? 0) + bytes);
    while (this.held.length > this.capacity || this.heldBytes > this.maxBytes) this.release(this.held.shift()!);
    this.budget?.charge(e);
    return true;
  }

  /** The held events of `stream` after sequence `seq`, oldest first. */
  after(stream: number, seq: number): StoredEvent[] {
    return this.held.filter((e) => e.stream === stream && e.seq > seq);
  }

  /** Bytes held for `stream`. */
  bytesOf(stream: number): number {
    return this.streamBytes.get(stream) ?? 0;
  }

  /** Drop the events of `stream` (delivered, or it will not be resumed); the others keep their order. */
  dropStream(stream: number): void {
    if (!this.held.some((e) => e.stream === stream)) return;
    const kept: HeldEvent[] = [];
    for (const e of this.held) if (e.stream === stream) this.release(e);
    else kept.push(e);
    this.held = kept;
  }

  /** Drop everything (the session ended). */
  clear(): void {
    for (const e of this.held) this.release(e);
    this.held = [];
  }

  /** @internal The server-wide budget evicts `e`, which is this store's oldest event. */
  evictOldest(e: HeldEvent): void {
    const i = this.held.indexOf(e);
    if (i < 0) return;
    this.held.splice(i, 1);
    this.release(e);
  }

  private release(e: HeldEvent): void {
    this.heldBytes -= e.bytes;
    const left = (this.streamBytes.get(e.stream) ?? 0) - e.bytes;
    if (left > 0) this.streamBytes.set(e.stream, left);
    else this.streamBytes.delete(e.stream);
    this.budget?.release(e);
    e.bytes = 0;
    // The husk may wait in the budget's queue a while: it must not keep the message alive.
    e.data = "";
  }
}
