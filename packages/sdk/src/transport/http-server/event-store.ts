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

/** How many streams' tallies a store finds by a search of a list; those of more streams are in a map. */
const LISTED_TALLIES = 16;

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

/** The bytes and events a store holds of one stream: shared by that stream's held events. */
interface StreamTally {
  readonly stream: number;
  bytes: number;
  events: number;
}

/** A held event: what the store keeps, and what the budget charges. */
class HeldEvent implements StoredEvent, BudgetedEvent {
  // The server-wide budget's links (`replay-budget.ts`), set here so every held event has one shape.
  older: BudgetedEvent | undefined = undefined;
  newer: BudgetedEvent | undefined = undefined;
  constructor(
    readonly store: EventStore,
    readonly tally: StreamTally,
    readonly seq: number,
    public data: string,
    public bytes: number,
  ) {}
  get stream(): number {
    return this.tally.stream;
  }
  evict(): void {
    this.store.evictOldest(this);
  }
}

/** Bounded storage of a session's events. Capacity 0 keeps nothing (resumption then replays nothing). */
export class EventStore {
  /**
   * Oldest first from `head` (slots before it are spent: a queue without `shift`, which moves every slot
   * at each eviction once the store is at its bound). Most sessions hold a handful of events.
   */
  private held: HeldEvent[] = [];
  private head = 0;
  private heldBytes = 0;
  /**
   * What is held per stream: asked at every stream's end, so counted rather than summed by a scan. The tally
   * of the stream appended to last is kept at hand, as a stream's events come one after another. The others
   * are found in a short list (a session holds the events of a few streams: its last delivered ones and
   * those whose peer is away), and past {@link LISTED_TALLIES} in a map. Not a map alone: every request adds
   * a stream and lets an older one go, and a map used as a queue slows down with its deleted entries.
   */
  private readonly listed: StreamTally[] = [];
  declare private spilled: Map<number, StreamTally> | undefined;
  private lastTally: StreamTally | undefined;

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
    return this.held.length - this.head;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Store an event, evicting the oldest while over a bound. Returns false when it could not be kept at all. */
  append(stream: number, seq: number, data: string): boolean {
    const bytes = data.length;
    if (this.capacity === 0 || bytes > this.maxBytes || (this.budget && bytes > this.budget.maxBytes)) return false;
    let tally = this.lastTally;
    if (tally?.stream !== stream) {
      tally = this.tallyOf(stream) ?? this.newTally(stream);
      this.lastTally = tally;
    }
    tally.bytes += bytes;
    tally.events++;
    const e = new HeldEvent(this, tally, seq, data, bytes);
    this.held.push(e);
    this.heldBytes += bytes;
    while (this.held.length - this.head > this.capacity || this.heldBytes > this.maxBytes) this.release(this.held[this.head++]!);
    this.compact();
    this.budget?.charge(e);
    return true;
  }

  /** The held events of `stream` after sequence `seq`, oldest first. */
  after(stream: number, seq: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = this.head; i < this.held.length; i++) {
      const e = this.held[i]!;
      if (e.tally.stream === stream && e.seq > seq) out.push(e);
    }
    return out;
  }

  /** Bytes held for `stream`. */
  bytesOf(stream: number): number {
    return this.tallyOf(stream)?.bytes ?? 0;
  }

  /** Drop the events of `stream` (delivered, or it will not be resumed); the others keep their order. */
  dropStream(stream: number): void {
    const tally = this.tallyOf(stream);
    if (!tally) return;
    // Commonly the oldest held events are that stream's, and they are all it holds.
    while (this.held[this.head]?.tally === tally) {
      this.release(this.held[this.head++]!);
      if (tally.events === 0) return this.compact();
    }
    const kept: HeldEvent[] = [];
    for (let i = this.head; i < this.held.length; i++) {
      const e = this.held[i]!;
      if (e.tally.stream === stream) this.release(e);
      else kept.push(e);
    }
    this.held = kept;
    this.head = 0;
  }

  /** Drop everything (the session ended). */
  clear(): void {
    for (let i = this.head; i < this.held.length; i++) this.release(this.held[i]!);
    this.held = [];
    this.head = 0;
  }

  /** @internal The server-wide budget evicts `e`, which is this store's oldest event. */
  evictOldest(e: HeldEvent): void {
    if (this.held[this.head] === e) this.head++;
    else {
      const i = this.held.indexOf(e, this.head);
      if (i < 0) return;
      this.held.splice(i, 1);
    }
    this.release(e);
    this.compact();
  }

  /** The tally of `stream`, while it has events held. */
  private tallyOf(stream: number): StreamTally | undefined {
    const last = this.lastTally;
    if (last?.stream === stream) return last;
    const listed = this.listed;
    for (let i = 0; i < listed.length; i++) if (listed[i]!.stream === stream) return listed[i];
    return this.spilled?.get(stream);
  }

  private newTally(stream: number): StreamTally {
    const tally = { stream, bytes: 0, events: 0 };
    if (this.listed.length < LISTED_TALLIES) this.listed.push(tally);
    else (this.spilled ??= new Map()).set(stream, tally);
    return tally;
  }

  /** A stream has no events held any more: its tally goes. */
  private forgetTally(tally: StreamTally): void {
    if (this.lastTally === tally) this.lastTally = undefined;
    const listed = this.listed;
    const i = listed.indexOf(tally);
    if (i < 0) {
      this.spilled?.delete(tally.stream);
      if (this.spilled?.size === 0) this.spilled = undefined;
      return;
    }
    // The list's order means nothing: the last entry takes the freed place.
    const last = listed.pop()!;
    if (i < listed.length) listed[i] = last;
  }

  /** Let go of the spent slots once they are most of the array. */
  private compact(): void {
    if (this.head === 0) return;
    if (this.head === this.held.length) {
      this.held = [];
      this.head = 0;
    } else if (this.head >= 32 && this.head * 2 >= this.held.length) {
      this.held = this.held.slice(this.head);
      this.head = 0;
    }
  }

  private release(e: HeldEvent): void {
    this.heldBytes -= e.bytes;
    const tally = e.tally;
    tally.bytes -= e.bytes;
    if (--tally.events === 0) this.forgetTally(tally);
    this.budget?.release(e);
    e.bytes = 0;
    // The husk may wait in a spent slot of `held` a while: it must not keep the message alive.
    e.data = "";
  }
}
