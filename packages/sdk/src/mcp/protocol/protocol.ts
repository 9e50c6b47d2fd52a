/**
 * `Protocol`: one JSON-RPC peer over one {@link Transport}. It sends requests (with timeouts, progress and
 * cancellation), answers inbound requests through registered handlers, and never crashes on anything a
 * peer sends: every inbound value is classified by hand (`classify`) and its params validated by the codec
 * of the active protocol revision.
 *
 * It knows nothing about `initialize`: the client and the server session negotiate and then call
 * {@link Protocol.setRevision}. That keeps the stateless 2026-07-28 revision a codec away.
 *
 * Its pure parts (a request's `_meta`, progress updates, batch refusals) are protocol-messages.ts; the
 * tables of requests in each direction are pending-requests.ts and inbound-requests.ts.
 */
import { SENT, type FrameError, type MessageExtra, type Transport, type TransportPeer } from "../../transport/types.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import {
  classify,
  errorResponse,
  ErrorCode,
  notification,
  request as requestMessage,
  type JsonRpcErrorResponse,
  type JsonRpcMessage,
  type JsonRpcResultResponse,
  type MessageKind,
  type RequestId,
} from "../../wire/jsonrpc.ts";
import { LATEST_REVISION, type McpCodec, type ProtocolRevision } from "../../wire/codec.ts";
import { getCodec } from "../../wire/codecs.ts";
import type { Logger } from "../../log.ts";
import { limitRepeats, type RepeatLimiter } from "../../_internal/repeat-limiter.ts";
import { Emitter, listenerErrorReporter } from "./emitter.ts";
import { protocolSettings, type ProtocolEvents, type ProtocolOptions, type ProtocolSettings } from "./protocol-options.ts";
import type { RegisteredNotification } from "./handler-table.ts";
import { InboundRequests } from "./inbound-requests.ts";
import { PendingRequests, type AbandonListener, type AbandonReason } from "./pending-requests.ts";
import {
  abandonText,
  batchRefusal,
  closedError,
  connectionClosedError,
  looksLikeResponse,
  notificationRefusal,
  progressUpdate,
  requestSendOptions,
  sendError,
  withMeta,
} from "./protocol-messages.ts";
import type { HandlerOptions, McpNotificationHandler, NotificationOptions, McpRequestHandler, RequestOptions } from "./types.ts";

/** How many abandoned request ids to remember, so their late responses are dropped quietly. */
const RECENTLY_ABANDONED = 256;

/** A JSON-RPC peer. */
export class Protocol implements AbandonListener, TransportPeer {
  /** See {@link ProtocolOptions.owner}. */
  readonly owner: object | undefined;
  declare private emitter: Emitter<ProtocolEvents> | undefined;
  private codecValue: McpCodec;
  private nextId = 1; // never 0: the official SDK ignores a notifications/cancelled for request id 0
  private isClosed = false;
  /** Outbound requests awaiting responses (created on the first: a server session may never send one). */
  declare private pendingTable: PendingRequests | undefined;
  /** Inbound requests being handled (made per burst of requests, dropped when idle: see {@link receive}). */
  declare private inboundTable: InboundRequests | undefined;
  // Created on first use: a server may hold thousands of idle peers that never need them.
  declare private notificationHandlers: Map<string, RegisteredNotification> | undefined;
  declare private abandoned: Set<RequestId> | undefined;
  /** Requests whose result the codec must not check (a task-augmented call returns `CreateTaskResult`). */
  declare private unvalidated: Set<RequestId> | undefined;
  declare private envelope: Record<string, unknown> | undefined;
  /** Warnings the peer can cause at will, one line a minute each event (created on first use). */
  declare private repeats: RepeatLimiter | undefined;

  /**
   * @param settings What this peer shares with others made alike (every session of a server); made from
   *   `options` when not given, and then `options`' own settings are ignored (its `owner` and `revision` are not).
   */
  constructor(
    readonly transport: Transport,
    options: ProtocolOptions = {},
    private readonly settings: ProtocolSettings = protocolSettings(options),
  ) {
    this.owner = options.owner;
    this.codecValue = getCodec(options.revision ?? LATEST_REVISION);
  }

  /** Where this peer logs. */
  get logger(): Logger {
    return this.settings.logger;
  }

  private get inbound(): InboundRequests {
    const s = this.settings;
    return (this.inboundTable ??= InboundRequests.open(this, s.logger, s.maxInflight, s.gate, s.shared));
  }

  private get pending(): PendingRequests {
    return (this.pendingTable ??= new PendingRequests(this, {
      timeoutMs: this.settings.defaultTimeoutMs,
      maxTotalTimeoutMs: this.settings.defaultMaxTotalTimeoutMs,
    }));
  }

  /** Events of this peer (`close`). */
  get events(): Emitter<ProtocolEvents> {
    return (this.emitter ??= new Emitter(listenerErrorReporter(this.logger)));
  }

  /** The codec of the active revision. */
  get codec(): McpCodec {
    return this.codecValue;
  }

  /** The active protocol revision. */
  get revision(): ProtocolRevision {
    return this.codecValue.revision;
  }

  /** Whether the transport has closed. */
  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * `_meta` entries every outbound request carries (2026-07-28: protocol version, client capabilities and
   * identity travel with each request instead of a handshake); `undefined` for none.
   */
  setRequestMeta(meta: Record<string, unknown> | undefined): void {
    this.envelope = meta;
  }

  /** Switch validation to a negotiated revision. */
  setRevision(revision: ProtocolRevision): void {
    if (revision !== this.codecValue.revision) this.codecValue = getCodec(revision);
  }

  /** Attach to the transport and start it. */
  async start(): Promise<void> {
    const t = this.transport;
    // A transport that takes the peer as one object spares four closures per connection.
    if (t.attach) t.attach(this);
    else {
      t.onmessage = (value, extra) => this.receive(value, extra);
      t.onframeerror = (e) => this.frameError(e);
      t.onerror = (e) => this.transportError(e);
      t.onclose = () => this.handleClose();
    }
    await t.start();
  }

  /** @internal The transport could not turn a frame into a JSON value. */
  frameError(e: FrameError): void {
    this.warnRepeated("mcp.frame_error", { code: e.error.code, message: e.error.message });
    // An oversized response: its request fails now (not at its timeout), and a response gets no reply.
    if (e.responseTo !== undefined) return void this.oversizedResponse(e.responseTo, e.error);
    this.sendRaw(errorResponse(null, e.error.code, e.error.message, e.error.data));
  }

  /** @internal A transport-level failure (informational). */
  transportError(e: Error): void {
    this.logger.warn("mcp.transport_error", { error: e.message });
  }

  /** @internal The transport closed. */
  transportClosed(): void {
    this.handleClose();
  }

  /**
   * Answer every inbound request still being handled with `error` at once (a shutdown whose grace ran out),
   * aborting its handler: the peer gets a final answer before the transport closes. Returns how many.
   */
  answerInFlight(error: McpError): number {
    const ids = this.inboundTable?.interruptAll(error.message) ?? [];
    for (const id of ids) this.sendRaw(errorResponse(id, error.code, error.message, error.data), id);
    return ids.length;
  }

  /** Close the transport; pending requests reject with `E_CONNECTION_CLOSED`. */
  async close(): Promise<void> {
    try {
      await this.transport.close();
    } finally {
      this.handleClose();
    }
  }

  /** Inbound requests being handled now, and outbound requests awaiting a response (for health and limits). */
  get load(): { inbound: number; outbound: number } {
    return { inbound: this.inboundTable?.size ?? 0, outbound: this.pendingTable?.size ?? 0 };
  }

  /** Outbound requests marked to skip result validation and still awaiting a response (diagnostics, tests). */
  get unvalidatedCount(): number {
    return this.unvalidated?.size ?? 0;
  }

  /** Register the handler of an inbound request method (replacing any previous one). */
  setRequestHandler(method: string, handler: McpRequestHandler, options: HandlerOptions = {}): void {
    this.inbound.set(method, handler, options);
  }

  /** Remove the handler of `method`; the peer then gets -32601. */
  removeRequestHandler(method: string): void {
    this.inbound.delete(method);
  }

  /** Whether a handler is registered for `method`. */
  hasRequestHandler(method: string): boolean {
    return this.inbound.has(method);
  }

  /** Whether this peer registered a handler of its own for `method` (not a shared or built-in one). */
  hasOwnRequestHandler(method: string): boolean {
    return this.inbound.hasOwn(method);
  }

  /** Register the handler of an inbound notification method (replacing any previous one). */
  setNotificationHandler(method: string, handler: McpNotificationHandler, options: HandlerOptions = {}): void {
    (this.notificationHandlers ??= new Map()).set(method, { handler, custom: options.custom ?? false });
  }

  /** Send a request and wait for its result (with `map`, what `map` makes of it). Errors: `McpError` (peer's), `AgentdError` (local). */
  request<T = Record<string, unknown>>(
    method: string,
    params?: Record<string, unknown>,
    options: RequestOptions & { validateResult?: boolean } = {},
    map?: (result: Record<string, unknown>) => unknown,
  ): Promise<T> {
    if (this.isClosed) return Promise.reject(closedError(method));
    if (options.signal?.aborted) return Promise.reject(new AgentdError("E_ABORTED", `${method} was aborted before it was sent`));
    const id = this.nextId++;
    options.onRequestId?.(id);
    const progressToken = options.onprogress ? id : undefined;
    const outParams = withMeta(params, this.envelope, options.meta, progressToken);
    const promise = this.pending.add(id, method, options, progressToken, map);
    if (options.validateResult === false && this.pending.has(id)) (this.unvalidated ??= new Set()).add(id);
    // A message taken at once (the shared settled promise) has no failure to come: no handler for it.
    const sent = this.transport.send(requestMessage(id, method, outParams), requestSendOptions(options));
    if (sent !== SENT) sent.catch((e: unknown) => this.failRequest(id, sendError(method, e)));
    return promise as Promise<T>;
  }

  /** Send a notification. Rejects when the transport is closed or the write fails. */
  async notify(method: string, params?: Record<string, unknown>, options: NotificationOptions = {}): Promise<void> {
    if (this.isClosed) throw closedError(method);
    await this.transport.send(notification(method, params), { relatedRequestId: options.relatedRequestId });
  }

  /** Send a message, logging instead of throwing (responses and errors to a peer that may be gone). */
  sendRaw(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): void {
    if (this.isClosed) return;
    // A batch reply is an array on the wire; transports serialise whatever value they are given.
    const sent = this.transport.send(message as JsonRpcMessage, { relatedRequestId });
    if (sent !== SENT)
      sent.catch((e: unknown) => this.logger.debug("mcp.send_failed", { error: e instanceof Error ? e.message : String(e) }));
  }

  /** @internal Entry point for every inbound value. */
  receive(value: unknown, extra?: MessageExtra): void {
    const known = extra?.classified; // this very message, classified by the transport to route it
    const c = known !== undefined && (known as { message?: unknown }).message === value ? known : classify(value);
    if (c.kind === "batch") return void this.receiveBatch(c.messages, extra);
    if (c.kind === "request") {
      this.inbound.handle(c.message, extra, this);
      return;
    }
    const reply = this.receiveOther(c, value, extra);
    if (reply) this.sendRaw(reply);
  }

  /** @internal Send the reply to inbound request `id`, if one is due; an idle peer keeps no inbound table (thousands of idle sessions). */
  replied(reply: JsonRpcMessage | undefined, id: RequestId): void {
    if (reply) this.sendRaw(reply, id);
    if (this.inboundTable?.idle) this.inboundTable = this.inboundTable.recycle();
  }

  /** A batch: each message handled, the replies sent as one array (where the revision allows batches). */
  private async receiveBatch(messages: unknown[], extra?: MessageExtra): Promise<void> {
    const refused = batchRefusal(this.codecValue, messages);
    if (refused) {
      if (!this.codecValue.batches) this.warnRepeated("mcp.invalid_message", { reason: "batch", revision: this.revision });
      return this.sendRaw(refused);
    }
    const replies = await Promise.all(
      messages.map((m) => {
        const c = classify(m);
        if (c.kind === "request")
          return new Promise<JsonRpcMessage | undefined>((resolve) => this.inbound.handle(c.message, extra, { replied: resolve }));
        if (c.kind === "batch") return errorResponse(null, ErrorCode.InvalidRequest, "Invalid request: nested batch");
        return this.receiveOther(c, m, extra);
      }),
    );
    const out = replies.filter((r): r is JsonRpcMessage => r !== undefined);
    // The reply goes where the batch's first request came from (a Streamable HTTP POST answers the whole
    // batch on one stream), so it is related to that request's id.
    const first = messages.find((m) => classify(m).kind === "request") as { id: RequestId } | undefined;
    if (out.length > 0) this.sendRaw(out, first?.id);
  }

  /** Notifications, responses and invalid values (`c` is `value` classified); returns the error reply an invalid value deserves. */
  private receiveOther(c: MessageKind, value: unknown, extra?: MessageExtra): JsonRpcErrorResponse | undefined {
    switch (c.kind) {
      case "notification":
        this.receiveNotification(c.message.method, c.message.params, extra);
        return undefined;
      case "result":
        this.receiveResult(c.message);
        return undefined;
      case "error":
        this.receiveError(c.message);
        return undefined;
      case "invalid":
        return this.receiveInvalid(value, c.id, c.reason);
      default:
        return undefined;
    }
  }

  private receiveInvalid(value: unknown, id: RequestId | null, reason: string): JsonRpcErrorResponse {
    this.warnRepeated("mcp.invalid_message", { reason });
    if (looksLikeResponse(value)) {
      // A malformed response to one of our requests: fail that request now rather than at its timeout, and
      // never address the error to the peer's own request with the same id.
      if (id !== null && this.pending.has(id))
        this.failRequest(id, new AgentdError("E_UPSTREAM", `malformed response from ${this.settings.peer}: ${reason}`));
      return errorResponse(null, ErrorCode.InvalidRequest, `Invalid request: ${reason}`);
    }
    return errorResponse(id, ErrorCode.InvalidRequest, `Invalid request: ${reason}`);
  }

  private receiveNotification(method: string, rawParams: Record<string, unknown> | undefined, extra?: MessageExtra): void {
    const entry = this.notificationHandlers?.get(method) ?? this.settings.shared?.notifications.get(method);
    const builtin = method === "notifications/cancelled" || method === "notifications/progress";
    if (!builtin && !entry) {
      this.logger.debug("mcp.notification_ignored", { method });
      return;
    }
    const params: Record<string, unknown> = rawParams ?? {};
    const refused = entry?.custom ? undefined : notificationRefusal(this.codecValue, method, rawParams);
    // Spec (cancellation): malformed notifications SHOULD be ignored; there is no one to answer.
    if (refused?.malformed) return this.warnRepeated("mcp.invalid_notification", { method, reason: refused.malformed });
    if (refused) return this.logger.debug("mcp.notification_ignored", { method, reason: `not part of ${this.revision}` });
    if (method === "notifications/cancelled") this.inboundTable?.cancel(params.requestId as RequestId, params.reason);
    else if (method === "notifications/progress") {
      const { token, update } = progressUpdate(params);
      if (!this.pending.progress(token, update)) this.logger.debug("mcp.progress_unknown_token", { progressToken: token });
    }
    if (!entry) return;
    try {
      const r = entry.handler(params, extra, this);
      if (r instanceof Promise) r.catch((e: unknown) => this.logNotificationError(method, e));
    } catch (e) {
      this.logNotificationError(method, e);
    }
  }

  private logNotificationError(method: string, e: unknown): void {
    this.logger.error("mcp.notification_handler_error", { method, error: e instanceof Error ? e.message : String(e) });
  }

  private receiveResult(message: JsonRpcResultResponse): void {
    const method = this.pending.methodOf(message.id);
    if (method === undefined) return this.unknownResponse(message.id);
    const skip = this.unvalidated?.delete(message.id) ?? false;
    // A result of a method this revision does not define (custom methods) passes as it is.
    const failed = skip ? undefined : this.codecValue.checkResult(method, message.result);
    if (failed === undefined || failed.unknown) this.pending.resolve(message.id, message.result);
    else {
      this.logger.warn("mcp.invalid_result", { method, reason: failed.message });
      this.pending.reject(
        message.id,
        new AgentdError("E_UPSTREAM", `invalid ${method} result from ${this.settings.peer}: ${failed.message}`),
      );
    }
  }

  private receiveError(message: JsonRpcErrorResponse): void {
    if (message.id === null || message.id === undefined) {
      this.warnRepeated("mcp.peer_error", { code: message.error.code, message: message.error.message });
      return;
    }
    if (!this.failRequest(message.id, McpError.fromError(message.error))) this.unknownResponse(message.id);
  }

  /**
   * Settle an outbound request with an error and drop what we kept for it: every path that ends a request
   * other than a result (send failed, malformed or error response) goes through here, so nothing is left.
   */
  private failRequest(id: RequestId, error: unknown): boolean {
    this.unvalidated?.delete(id);
    return this.pending.reject(id, error);
  }

  private oversizedResponse(id: RequestId, error: McpError): void {
    const method = this.pending.methodOf(id);
    if (method === undefined) return this.unknownResponse(id);
    const limit = (error.data as { maxFrameBytes?: number } | undefined)?.maxFrameBytes;
    const over = limit === undefined ? "over the frame size limit" : `over the ${limit}-byte frame limit (maxFrameBytes)`;
    this.failRequest(id, new AgentdError("E_UPSTREAM", `${this.settings.peer} sent a ${method} response ${over}; it was discarded`));
  }

  private unknownResponse(id: RequestId): void {
    if (this.abandoned?.has(id)) this.logger.debug("mcp.late_response", { id });
    else this.warnRepeated("mcp.unknown_response", { id });
  }

  /** A warning the peer can cause at will (bad frames, unknown ids): the first now, then a count a minute. */
  private warnRepeated(event: string, fields: Record<string, unknown>): void {
    (this.repeats ??= limitRepeats(this.logger)).warn(event, fields);
  }

  /** @internal A request of ours was given up (timeout, ceiling, abort): tell the peer. */
  requestAbandoned(id: RequestId, method: string, reason: AbandonReason): void {
    this.unvalidated?.delete(id);
    const abandoned = (this.abandoned ??= new Set());
    abandoned.add(id);
    if (abandoned.size > RECENTLY_ABANDONED) abandoned.delete(abandoned.values().next().value as RequestId);
    // Lifecycle spec: the initialize request MUST NOT be cancelled by clients.
    if (method === "initialize" || this.isClosed) return;
    this.notify("notifications/cancelled", { requestId: id, reason: abandonText(reason) }).catch(() => {});
  }

  private handleClose(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    // The transport may know why (a stdio server exited: its code and last stderr lines): say that.
    const reason = this.transport.closeReason;
    this.pendingTable?.rejectAll(() => connectionClosedError(reason));
    this.unvalidated?.clear();
    this.inboundTable?.abortAll("connection closed");
    this.settings.shared?.closed?.(this);
    this.repeats?.flush();
    this.emitter?.emit("close");
  }
}
