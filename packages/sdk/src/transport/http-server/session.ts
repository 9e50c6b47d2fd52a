/**
 * One Streamable HTTP session: its outbound streams, the requests awaiting responses, the event store, and
 * the routing of every message the MCP server sends.
 *
 * Routing (transport spec, "Sending Messages to the Server" and "Multiple Connections"): a response goes to
 * the stream of the POST that carried its request, and that stream ends after its last response; a message
 * sent while handling a request goes to that request's stream; anything else goes to the standalone GET
 * stream. Each message is written to exactly one stream, never broadcast. Every SSE event is also kept in
 * the bounded event store so a broken stream can be resumed with `Last-Event-ID`.
 *
 * A request stops being pending when its response is sent, or earlier when no response is due: the client
 * cancelled it (`notifications/cancelled`; the cancellation spec says receivers SHOULD NOT answer and SHOULD
 * free its resources), or, in JSON response mode, the client went away (a JSON body cannot be resumed). Its
 * stream then ends once nothing else on it is pending, so neither the in-flight nor the stream limit leaks.
 */
import type { Logger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.ts";
import { SENT, type SendOptions } from "../types.ts";
import { SUPPORTED_REVISIONS } from "../../wire/codec.ts";
import { answeredOn, recordAnswer, replayExpired, SessionReplay, type ReplaySettings } from "./session-replay.ts";
import { JsonExchange, type JsonExchangeOwner } from "./json-exchange.ts";
import { newPostStream, type OutStream, type PostStream, removeKey } from "./out-stream.ts";
import type { HttpSessionTransport } from "./session-transport.ts";
import { SessionTables } from "./session-tables.ts";
import type { SseEndHook, SseWriter } from "./sse-writer.ts";

/** How many dropped request keys a session remembers, to log their late responses quietly. */
const DROPPED_KEYS = 256;

/** A resumption of a session that stored nothing. */
const NOTHING_TO_REPLAY = Object.freeze({ replay: [], lost: [] });

/** Settings a session needs from the server. */
export interface SessionSettings extends ReplaySettings {
  retryMs: number;
  maxStreams: number;
  logger: Logger;
  /** Called once when the session ends, before `onclose` fires on its transport. */
  onended: (session: Session, reason: string) => void;
}

/** Outcome of opening a stream; `over`: a resumption of an ended stream with nothing left to replay. */
export type OpenResult = "ok" | "limit" | "conflict" | "unknown" | "over";

/**
 * Revisions whose streams start with a priming event (an event id and an empty `data` field, so the client
 * can resume a stream that breaks before its first message): the 2025-11-25 transport spec's "Resumability
 * and Redelivery". Earlier revisions define none, and their clients (the official SDK before 1.23, among
 * others) parse the empty `data` as a message and report a JSON parse error; 2026-07-28 removed resumption.
 */
const PRIMING_REVISIONS: ReadonlySet<string> = new Set(["2025-11-25"]);

/** What the `Transport` side of every session returns for work done at once: the transports' shared {@link SENT}. */
const DONE: Promise<void> = SENT;

/**
 * One session, and its {@link HttpSessionTransport} (a base class: one record per session). Its tables
 * (`session-tables.ts`, another base) are made on first use and dropped when empty, its settings are the
 * server's: a server may hold thousands of idle sessions, each costing little more than its GET stream.
 */
export class Session extends SessionTables implements OutStream, SseEndHook, JsonExchangeOwner {
  /** The negotiated protocol revision, learned from the `initialize` result the server sends. */
  protocolVersion: string | undefined;
  lastActivity = Date.now();
  readonly createdAt = Date.now();
  closed = false;
  /** Whether the client sent `notifications/initialized` (the session is fully set up). */
  initialized = false;
  /** What a resumption can be given (created on the first stored event). */
  declare private replay: SessionReplay | undefined;
  /** Keys of requests dropped without a response (cancelled, or their JSON exchange abandoned). */
  declare private dropped: Set<RequestId> | undefined;
  private nextStreamId = 0;
  private connected = 0;
  private exchanges = 0;
  declare private initKey: RequestId | undefined;
  /** The stream that carried the `initialize` response, until the client confirms it got it. */
  declare private initStream: number | undefined;

  // The standalone GET stream's record (`OutStream`) is the session itself: one object less per idle session.
  /** @internal The standalone stream's number, or -1 while the session has none. */
  streamId = -1;
  /** @internal The standalone stream's last sequence number. */
  seq = 0;
  /** @internal The standalone stream's connected writer, or null while its peer is away (or there is none). */
  writer: SseWriter | null = null;

  /**
   * One stateless 2026-07-28 request: its stream carries no event ids and keeps nothing for replay (that
   * revision removed SSE resumability; a broken stream loses the request, which the client re-issues).
   */
  stateless = false;

  constructor(
    readonly id: string,
    /** The principal that created the session; every later request must present the same one. */
    readonly principal: string,
    private readonly settings: SessionSettings,
  ) {
    super();
  }

  /** The session's `Transport` (the session itself), as handed to `onsession`. */
  get transport(): HttpSessionTransport {
    return this;
  }

  /** The standalone stream, while the session has one. */
  private get standalone(): OutStream | undefined {
    return this.streamId >= 0 ? this : undefined;
  }

  /** The negotiated revision, when the protocol layer knows it before the transport observes it. */
  setProtocolVersion(revision: string): void {
    this.protocolVersion = revision;
  }

  /** SSE streams with a connected peer. */
  get connectedStreams(): number {
    return this.connected;
  }

  /** Whether any HTTP request of the session is still open (an SSE stream or a JSON exchange). */
  get busy(): boolean {
    return this.connected > 0 || this.exchanges > 0;
  }

  /** Record activity (requests in, messages out) for idle expiry. */
  touch(): void {
    this.lastActivity = Date.now();
  }

  /** Whether a request with this id is still awaiting its response. */
  hasPending(id: RequestId): boolean {
    return this.pendingStream(id) !== undefined;
  }

  /**
   * Remember which request is `initialize`, to learn the negotiated revision from its result. `requested`,
   * the client's, is one the answer will carry if we speak it: its stream starts as that revision's do.
   */
  expectInitialize(id: RequestId, requested?: unknown): void {
    this.initKey = id;
    if (typeof requested === "string" && PRIMING_REVISIONS.has(requested)) this.protocolVersion = requested;
  }

  /** Whether this session's streams start with a priming event (see {@link PRIMING_REVISIONS}). */
  get primes(): boolean {
    return !this.stateless && this.protocolVersion !== undefined && PRIMING_REVISIONS.has(this.protocolVersion);
  }

  /**
   * Open the SSE stream of a POST carrying `requestIds`, with its priming event where the revision defines
   * one (a stream without one still needs a first byte before its body is handed over: `sse-writer.ts`).
   */
  openPostStream(requestIds: RequestId[], writer: SseWriter): OpenResult {
    if (this.connected >= this.settings.maxStreams) return "limit";
    const stream = this.newStream(requestIds);
    this.connectWriter(stream, writer);
    if (this.primes) writer.priming(stream.streamId, this.settings.retryMs);
    return "ok";
  }

  /**
   * JSON response mode: collect the responses to `requestIds`; the exchange settles when none of them is
   * pending any more (answered or cancelled; an empty list when all were cancelled). When the signal given
   * to {@link JsonExchange.watch} aborts (the client went away) the exchange is abandoned: a JSON body cannot
   * be resumed, so its requests are no longer pending and their responses, when they come, are dropped.
   */
  openJsonExchange(requestIds: RequestId[]): JsonExchange {
    // The exchange is its stream's record too: one object per JSON-mode POST, not two.
    const exchange = new JsonExchange(this, this.nextStreamId++, requestIds);
    this.opened(exchange);
    this.exchanges++;
    return exchange;
  }

  /** @internal A JSON exchange settled: its HTTP request is answered. */
  exchangeSettled(): void {
    this.exchanges--;
    this.touch();
  }

  /** @internal A JSON exchange whose client went away: none of its requests is pending any more; it settles now. */
  exchangeAbandoned(stream: PostStream): void {
    this.abandon(stream, "client went away");
  }

  /**
   * The client cancelled request `id` (an inbound `notifications/cancelled`): no response is due, so it stops
   * being pending, and its stream ends once nothing else on it is pending. Unknown or answered ids are
   * ignored (the notification may arrive after the response went out).
   */
  cancelRequest(id: RequestId): void {
    const stream = this.pendingStream(id);
    if (!stream) return;
    this.settings.logger.debug("http.request.cancelled", { session: this.id.slice(0, 8) });
    this.drop(id, stream);
    if (stream.pending.length === 0) this.endStream(stream);
  }

  /**
   * The client sent `notifications/initialized`, which it may only send after it has the `initialize`
   * result: nothing will resume that stream, so its stored events go (otherwise every idle session would
   * hold its initialize response until the store evicts it).
   */
  clientInitialized(): void {
    this.initialized = true;
    if (this.initStream === undefined) return;
    // Received for certain: a resumption of that stream has nothing it could have missed.
    this.replay?.confirmed(this.initStream);
    if (this.replay?.empty) this.replay = undefined;
    this.initStream = undefined;
  }

  /** Open the standalone GET stream (at most one connected at a time). */
  openStandalone(writer: SseWriter): OpenResult {
    if (this.standalone?.writer) return "conflict";
    if (this.connected >= this.settings.maxStreams) return "limit";
    // A detached earlier standalone stream stays replayable from the store; new messages go to this one.
    if (this.standalone) this.endStream(this);
    this.streamId = this.nextStreamId++;
    this.seq = 0;
    this.connectWriter(this, writer);
    if (this.primes) writer.priming(this.streamId, this.settings.retryMs);
    else writer.comment();
    return "ok";
  }

  /**
   * Resume stream `streamId` after sequence `seq` on a new connection: replay its stored events, then (if the
   * stream is still live) keep writing to the new connection. Never replays another stream's events.
   */
  resume(streamId: number, seq: number, lastEventId: string, writer: SseWriter): OpenResult {
    if (streamId >= this.nextStreamId) return "unknown";
    const stream: OutStream | undefined = this.standalone?.streamId === streamId ? this.standalone : this.streamById(streamId);
    if (stream?.json) return "unknown";
    const { replay, lost } = this.replay?.resume(streamId, seq, stream && answeredOn(stream)) ?? NOTHING_TO_REPLAY;
    // Nothing will ever come on it (e.g. its request was cancelled). An empty stream would be re-polled by
    // clients that reconnect whenever a stream ends without a response (the official SDK does, forever).
    if (!stream && replay.length === 0 && lost.length === 0) return "over";
    if (stream && !stream.writer && this.connected >= this.settings.maxStreams) return "limit";
    if (this.primes) writer.event(lastEventId, "", this.settings.retryMs);
    else writer.comment();
    const first = replay[0];
    if ((first && first.seq !== seq + 1) || (!first && stream && stream.seq > seq))
      this.settings.logger.warn("http.replay.gap", { session: this.id.slice(0, 8), stream: streamId, after: seq });
    for (const e of replay) writer.numberedJson(e.stream, e.seq, e.data);
    // A response no longer held is answered with an error rather than never (see session-replay.ts).
    for (const id of lost) writer.event(undefined, JSON.stringify(replayExpired(id)));
    if (!stream) {
      writer.end();
      return "ok";
    }
    // The old connection is presumed dead: the client would not resume otherwise. One writer per stream.
    stream.writer?.end();
    this.connectWriter(stream, writer);
    return "ok";
  }

  /**
   * Route one outbound message (see the file header). Rejects once the session has ended. Not an async
   * function: routing is synchronous, and every answer passes here, so a routed message answers the one
   * shared resolved promise instead of making its own.
   */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new AgentdError("E_CONNECTION_CLOSED", "session has ended"));
    try {
      this.route(message, options);
    } catch (e) {
      return Promise.reject(e);
    }
    return DONE;
  }

  private route(message: JsonRpcMessage, options: SendOptions | undefined): void {
    const m = message as { method?: unknown; id?: RequestId | null; result?: { protocolVersion?: unknown } };
    if (m.method === undefined) return this.routeResponse(message, m.id, m.result);
    this.touch();
    let stream: OutStream | undefined;
    if (options?.relatedRequestId !== undefined) stream = this.pendingStream(options.relatedRequestId);
    // A JSON body carries responses only; related requests and notifications go to the GET stream instead.
    if (!stream || stream.json) stream = this.standalone;
    if (!stream) {
      this.settings.logger.debug("http.drop", { session: this.id.slice(0, 8), why: "no stream for server message" });
      return;
    }
    this.emit(stream, message);
  }

  /** Route a response to the stream of the POST that carried its request; that stream ends after its last one. */
  private routeResponse(
    message: JsonRpcMessage,
    key: RequestId | null | undefined,
    result: { protocolVersion?: unknown } | undefined,
  ): void {
    const stream = key === null || key === undefined ? undefined : this.pendingStream(key);
    // Not recorded as activity when it goes into a JSON exchange: the session is busy until the exchange
    // settles, and that records it (`exchangeSettled`), so a JSON request reads the clock once, not twice.
    if (!stream?.json) this.touch();
    if (key === null || key === undefined) {
      this.settings.logger.debug("http.drop", { session: this.id.slice(0, 8), why: "response without id" });
      return;
    }
    // Observed once: the id may be reused by a later request.
    const isInitialize = key === this.initKey;
    // A failed initialize (no revision in its result) ends the session once its answer is out.
    let initFailed = false;
    if (isInitialize) {
      this.initKey = undefined;
      initFailed = !this.observeInitialize(result);
    }
    if (!stream) {
      // Never on the standalone stream: the spec forbids responses there outside a resumption. A response
      // to a request we dropped on purpose (cancelled, or its client gone) is expected, hence only debug.
      const level = this.dropped?.has(key) ? "debug" : "warn";
      this.settings.logger.log(level, "http.drop", { session: this.id.slice(0, 8), why: "response to no open request" });
      return;
    }
    this.forgetPending(key);
    removeKey(stream.pending, key);
    if (isInitialize) this.initStream = stream.streamId;
    const seq = this.emit(stream, message);
    if (seq > 0) recordAnswer(stream, key, seq);
    if (stream.pending.length === 0) this.endStream(stream);
    if (initFailed) queueMicrotask(() => this.end("initialize failed"));
  }

  /** End the session (see {@link end}); done when it returns, the promise is the `Transport` interface's. */
  close(reason = "closed by server"): Promise<void> {
    this.end(reason);
    return DONE;
  }

  /** End the session: streams end, pending JSON exchanges get errors, `onclose` fires once. */
  end(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.openStreams()) {
      if (stream.json) {
        for (const id of stream.pending) stream.json.collect({ jsonrpc: "2.0", id, error: { code: -32000, message: "Session ended" } });
      }
      this.endStream(stream);
    }
    if (this.standalone) this.endStream(this);
    this.clearPending();
    this.dropped = undefined;
    // Cleared, not only forgotten: its bytes go back to the server-wide replay budget.
    this.replay?.clear();
    this.replay = undefined;
    this.settings.onended(this, reason);
    this.transportClosed();
  }

  /** Learn the negotiated revision from the `initialize` result; false when it has none (initialize failed). */
  private observeInitialize(result: { protocolVersion?: unknown } | undefined): boolean {
    const revision = result?.protocolVersion;
    if (typeof revision !== "string") return false;
    // The shared constant when it is one we speak, rather than a copy per session.
    this.protocolVersion = SUPPORTED_REVISIONS.find((r) => r === revision) ?? revision;
    return true;
  }

  /** A new POST stream, pending on `requestIds`. */
  private newStream(requestIds: RequestId[]): PostStream {
    const stream = newPostStream(this.nextStreamId++, requestIds);
    this.opened(stream);
    return stream;
  }

  /** Record a new POST stream and its pending requests. */
  private opened(stream: PostStream): void {
    for (const id of stream.pending) this.addPending(id, stream);
    this.addStream(stream);
  }

  /** A JSON exchange whose client went away: none of its requests is pending any more; it resolves now. */
  private abandon(stream: PostStream, why: string): void {
    if (stream.pending.length > 0) this.settings.logger.debug("http.exchange.abandoned", { session: this.id.slice(0, 8), why });
    for (const key of [...stream.pending]) this.drop(key, stream);
    this.endStream(stream);
  }

  /** Forget pending request `key` of `stream` without a response. */
  private drop(key: RequestId, stream: PostStream): void {
    this.forgetPending(key);
    removeKey(stream.pending, key);
    const dropped = (this.dropped ??= new Set());
    dropped.add(key);
    if (dropped.size > DROPPED_KEYS) dropped.delete(dropped.values().next().value as RequestId);
  }

  private connectWriter(stream: OutStream, writer: SseWriter): void {
    // A writer that already ended (a replay past the buffer limit) is not attached: it would hold a stream
    // slot, and the standalone stream, forever.
    if (!writer.open) return;
    stream.writer = writer;
    this.connected++;
    writer.owner = this;
  }

  /** @internal One of this session's writers stopped: its stream waits, detached, for a resumption. */
  writerEnded(writer: SseWriter): void {
    this.connected--;
    if (this.standalone?.writer === writer) this.standalone.writer = null;
    else {
      const stream = this.streamOfWriter(writer);
      if (stream) stream.writer = null;
    }
    this.touch();
  }

  /** Write `message` on `stream` (and keep it for replay); its sequence number, or 0 in a JSON exchange. */
  private emit(stream: OutStream, message: JsonRpcMessage): number {
    if (stream.json) {
      stream.json.collect(message);
      return 0;
    }
    const data = JSON.stringify(message);
    const seq = ++stream.seq;
    if (this.stateless) {
      stream.writer?.event(undefined, data);
      return seq;
    }
    // Kept even on a stream no `Last-Event-ID` ever named: a client resumes only after its connection broke,
    // with the last id it read (2025-11-25 transports, "Resumability and Redelivery"), so any numbered event
    // may be asked for later. Only a store configured off (`eventStoreEvents: 0`) keeps nothing.
    if (this.settings.eventStoreEvents > 0) (this.replay ??= new SessionReplay(this.settings)).keep(stream.streamId, seq, data);
    stream.writer?.numberedJson(stream.streamId, seq, data);
    return seq;
  }

  private endStream(stream: OutStream): void {
    const { streamId, writer } = stream;
    if (stream === this) {
      this.streamId = -1;
      this.writer = null;
    } else this.removeStream(streamId);
    stream.json?.settle();
    // Ended with its peer still connected: delivered.
    if (!this.closed && !stream.json && stream.seq > 0) this.replay?.streamEndedOn(stream, writer !== null);
    if (writer === null) return;
    // Let go of here, not in `writerEnded`: no search for its stream, and no clock read (whatever ends a
    // stream — a response routed, a request cancelled, the session's end — recorded the activity already).
    writer.owner = undefined;
    this.connected--;
    writer.end();
  }
}
