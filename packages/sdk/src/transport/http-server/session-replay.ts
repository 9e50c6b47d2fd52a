/**
 * What one session keeps so a broken stream can be resumed with `Last-Event-ID`: its recent events (bounded
 * in count and bytes, see `event-store.ts`; of a delivered stream, only while it is among the last few), and
 * a short memory of ended streams — the responses they carried — so that a resumption arriving after a
 * response was dropped is answered rather than left silent.
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

/**
 * How many of a session's delivered streams keep their events. Its peer was connected to the end, so only
 * a connection cut after the last write and before the peer read it needs them: the client then resumes at
 * once (transport spec, "Resumability and Redelivery": on any disconnection), within a few more streams of
 * its session. Older ones go as newer ones end, rather than holding the session's store at its bound with
 * answers already read (then each request moved a long-held event out, the server's costliest bookkeeping
 * under load). A resumption that comes later gets the error answer of a response no longer held.
 */
const KEEP_DELIVERED_STREAMS = 8;

/** How many ended streams a session remembers, to answer a late resumption of one whose events are gone. */
const ENDED_STREAMS = 64;

/** Responses a stream carried: request id and event sequence. */
export type Answered = [RequestId, number][];

/**
 * The responses a stream carried, as its record keeps them: the first in two fields, the rest (a batch's)
 * in a list. Most streams carry one response, and a list of one pair for each — two arrays per request,
 * held on in the ended streams' memory below — cost a request more than the rest of its replay bookkeeping.
 */
export interface StreamAnswers {
  readonly streamId: number;
  /** The request id of the first response sent on the stream (undefined while none was). */
  answerKey?: RequestId | undefined;
  /** The event sequence that response went out in. */
  answerSeq?: number;
  /** The responses after the first. */
  answered?: Answered;
}

/** Note that `stream` carried the response to `key` in event `seq`. */
export function recordAnswer(stream: StreamAnswers, key: RequestId, seq: number): void {
  if (stream.answerKey === undefined) {
    stream.answerKey = key;
    stream.answerSeq = seq;
  } else (stream.answered ??= []).push([key, seq]);
}

/** Every response `stream` carried, oldest first; undefined when none (a list made for a resumption only). */
export function answeredOn(stream: StreamAnswers): Answered | undefined {
  if (stream.answerKey === undefined) return undefined;
  const first: [RequestId, number] = [stream.answerKey, stream.answerSeq ?? 0];
  return stream.answered ? [first, ...stream.answered] : [first];
}

/** Replay settings of a session. */
export interface ReplaySettings {
  eventStoreEvents: number;
  eventStoreBytes: number;
  replayBudget?: ReplayBudget;
}

/** The replay memory of one session (created on first use). */
export class SessionReplay {
  private events: EventStore | undefined;
  /**
   * The last {@link ENDED_STREAMS} ended streams, oldest overwritten first: a ring of parallel slots rather
   * than a Map, as one is written at every stream's end (a Map used as a queue slows down with its deleted
   * entries) and read only by a resumption. A confirmed stream's slot holds -1.
   */
  private endedIds: number[] | undefined;
  private endedAnswered: (Answered | undefined)[] = [];
  /** A stream that carried one response: its request id and sequence here, and no list (see {@link StreamAnswers}). */
  private endedKey: (RequestId | undefined)[] = [];
  private endedSeq: number[] = [];
  /** The slot the next ended stream takes. */
  private endedNext = 0;
  /** Slots that name a stream (not -1). */
  private endedCount = 0;
  /** The last {@link KEEP_DELIVERED_STREAMS} delivered streams that kept events, a ring like `endedIds`. */
  private delivered: number[] | undefined;
  private deliveredNext = 0;

  constructor(private readonly settings: ReplaySettings) {}

  /** Keep an event written on `stream` for replay. */
  keep(stream: number, seq: number, data: string): void {
    const { eventStoreEvents, eventStoreBytes, replayBudget } = this.settings;
    if (eventStoreEvents > 0) (this.events ??= new EventStore(eventStoreEvents, eventStoreBytes, replayBudget)).append(stream, seq, data);
  }

  /**
   * Stream `stream` ended (its last sequence, `_lastSeq`, is not needed: a resumption's cursor is checked
   * against the held events and the answered list); `delivered` when its peer was connected to the end.
   */
  streamEnded(stream: number, _lastSeq: number, answered: Answered | undefined, delivered: boolean): void {
    this.ended(stream, delivered, answered, undefined, 0);
  }

  /** Stream `s` ended (see {@link streamEnded}), its responses read off its record: a lone one without a list. */
  streamEndedOn(s: StreamAnswers, delivered: boolean): void {
    if (s.answered === undefined) this.ended(s.streamId, delivered, undefined, s.answerKey, s.answerSeq ?? 0);
    else this.ended(s.streamId, delivered, answeredOn(s), undefined, 0);
  }

  private ended(stream: number, delivered: boolean, answered: Answered | undefined, key: RequestId | undefined, seq: number): void {
    // A delivered large answer need not stay resident, nor an older delivered stream; a stream whose peer is
    // away keeps its events for the resumption to come.
    if (delivered && this.events) {
      const bytes = this.events.bytesOf(stream);
      if (bytes > KEEP_DELIVERED_BYTES) this.drop(stream);
      else if (bytes > 0) this.keepDelivered(stream);
    }
    const ids = (this.endedIds ??= []);
    const i = this.endedNext;
    if (i < ids.length) {
      if (ids[i] === -1) this.endedCount++;
    } else this.endedCount++;
    ids[i] = stream;
    this.endedAnswered[i] = answered;
    this.endedKey[i] = key;
    this.endedSeq[i] = seq;
    this.endedNext = i + 1 === ENDED_STREAMS ? 0 : i + 1;
  }

  /** The client confirmed it has everything of `stream` (the initialize answer): nothing of it is kept. */
  confirmed(stream: number): void {
    const i = this.endedSlot(stream);
    if (i >= 0) {
      this.endedIds![i] = -1;
      this.endedAnswered[i] = undefined;
      this.endedKey[i] = undefined;
      if (--this.endedCount === 0) this.forgetEnded();
    }
    this.drop(stream);
  }

  /** Whether nothing is kept (an idle session can then drop this object). */
  get empty(): boolean {
    return this.events === undefined && this.endedIds === undefined;
  }

  /**
   * What a resumption of `stream` after `seq` can send: the held events, and the requests whose responses
   * came after `seq` but are no longer held (`answered`: those of a stream still open, else remembered).
   */
  resume(stream: number, seq: number, answered?: Answered): { replay: StoredEvent[]; lost: RequestId[] } {
    const replay = this.events?.after(stream, seq) ?? [];
    const slot = answered ? -1 : this.endedSlot(stream);
    const sent = answered ?? (slot >= 0 ? this.answeredAt(slot) : undefined) ?? [];
    const lost = sent.filter(([, s]) => s > seq && !replay.some((e) => e.seq === s)).map(([id]) => id);
    return { replay, lost };
  }

  /** Forget everything; the held bytes go back to the server-wide budget. */
  clear(): void {
    this.events?.clear();
    this.events = undefined;
    this.delivered = undefined;
    this.deliveredNext = 0;
    this.forgetEnded();
  }

  /** Keep delivered `stream` among the last few; the oldest of them lets its events go. */
  private keepDelivered(stream: number): void {
    const ring = (this.delivered ??= []);
    const i = this.deliveredNext;
    const oldest = ring[i];
    ring[i] = stream;
    this.deliveredNext = i + 1 === KEEP_DELIVERED_STREAMS ? 0 : i + 1;
    if (oldest !== undefined) this.drop(oldest);
  }

  /** The responses of the ended stream in `slot`. */
  private answeredAt(slot: number): Answered | undefined {
    const key = this.endedKey[slot];
    return key === undefined ? this.endedAnswered[slot] : [[key, this.endedSeq[slot] ?? 0]];
  }

  private endedSlot(stream: number): number {
    return this.endedIds?.indexOf(stream) ?? -1;
  }

  private forgetEnded(): void {
    this.endedIds = undefined;
    this.endedAnswered = [];
    this.endedKey = [];
    this.endedSeq = [];
    this.endedNext = 0;
    this.endedCount = 0;
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
