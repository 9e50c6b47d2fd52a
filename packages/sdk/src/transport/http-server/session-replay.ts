/**
 * What one session keeps so a broken stream can be resumed with `Last-Event-ID`: its recent events (bounded
 * in count and bytes, see `event-store.ts`), and a short memory of ended streams — their last sequence and
 * the responses they carried — so that a resumption arriving after a response was dropped is answered
 * rather than left silent.
 *
 * The 2025-11-25 transport spec lets a server replay what would have been sent after the last event id on
 * that stream (MAY), never another stream's, and says nothing of events it no longer holds. A response
 * that is gone would leave its request unanswered for ever; it is answered with a JSON-RPC error for that
 * request id instead, telling the client to send the request again.
 */
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.ts";
import { EventStore, type StoredEvent } from "./event-store.ts";
import type { ReplayBudget } from "./replay-budget.ts";

/**
 * A stream delivered to a connected peer keeps its events for replay (the connection may still have been
 * cut before the peer read them) only while they are this small; a large answer goes at once.
 */
const KEEP_DELIVERED_BYTES = 64 * 1024;

/** How many ended streams a session remembers, to answer a late resumption of one whose events are gone. */
const ENDED_STREAMS = 64;

/** Responses a stream carried: request id and event sequence. */
export type Answered = [RequestId, number][];

/** Replay settings of a session. */
export interface ReplaySettings {
  eventStoreEvents: number;
  eventStoreBytes: number;
  replayBudget?: ReplayBudget;
}

/** The replay memory of one session (created on first use). */
export class SessionReplay {
  private events: EventStore | undefined;
  private ended: Map<number, { lastSeq: number; answered: Answered | undefined }> | undefined;

  constructor(private readonly settings: ReplaySettings) {}

  /** Keep an event written on `stream` for replay. */
  keep(stream: number, seq: number, data: string): void {
    const { eventStoreEvents, eventStoreBytes, replayBudget } = this.settings;
    if (eventStoreEvents > 0) (this.events ??= new EventStore(eventStoreEvents, eventStoreBytes, replayBudget)).append(stream, seq, data);
  }

  /** Stream `stream` ended after sequence `lastSeq`; `delivered` when its peer was connected to the end. */
  streamEnded(stream: number, lastSeq: number, answered: Answered | undefined, delivered: boolean): void {
    // A delivered large answer need not stay resident; a stream whose peer is away keeps its events for the
    // resumption to come.
    if (delivered && this.events && this.events.bytesOf(stream) > KEEP_DELIVERED_BYTES) this.drop(stream);
    const ended = (this.ended ??= new Map());
    ended.set(stream, { lastSeq, answered });
    if (ended.size > ENDED_STREAMS) ended.delete(ended.keys().next().value as number);
  }

  /** The client confirmed it has everything of `stream` (the initialize answer): nothing of it is kept. */
  confirmed(stream: number): void {
    this.ended?.delete(stream);
    if (this.ended?.size === 0) this.ended = undefined;
    this.drop(stream);
  }

  /** Whether nothing is kept (an idle session can then drop this object). */
  get empty(): boolean {
    return this.events === undefined && this.ended === undefined;
  }

  /**
   * What a resumption of `stream` after `seq` can send: the held events, and the requests whose responses
   * came after `seq` but are no longer held (`answered`: those of a stream still open, else remembered).
   */
  resume(stream: number, seq: number, answered?: Answered): { replay: StoredEvent[]; lost: RequestId[] } {
    const replay = this.events?.after(stream, seq) ?? [];
    const sent = answered ?? this.ended?.get(stream)?.answered ?? [];
    const lost = sent.filter(([, s]) => s > seq && !replay.some((e) => e.seq === s)).map(([id]) => id);
    return { replay, lost };
  }

  /** Forget everything; the held bytes go back to the server-wide budget. */
  clear(): void {
    this.events?.clear();
    this.events = undefined;
    this.ended = undefined;
  }

  private drop(stream: number): void {
    if (!this.events) return;
    this.events.dropStream(stream);
    if (this.events.size === 0) this.events = undefined;
  }
}

/** The answer to a request whose response fell out of the replay buffer before the client resumed. */
export function replayExpired(id: RequestId): JsonRpcMessage {
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: -32000,
      message: "Response no longer available: it fell out of the server's replay buffer before the client resumed; send the request again",
    },
  };
}
