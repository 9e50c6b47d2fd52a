/**
 * The Streamable HTTP client transport (MCP 2025-11-25, "Transports" § Streamable HTTP).
 *
 * Every outbound message is its own POST to the one MCP endpoint. A request's answer is either one JSON
 * body or an SSE stream that may carry server requests and notifications before the response; both end up
 * in `onmessage`, in order. Notifications and responses are answered 202.
 *
 * Session: the `Mcp-Session-Id` of the initialize response is echoed on every later request, with the
 * `MCP-Protocol-Version` given by `setProtocolVersion`. When the server forgets the session (404 — or the
 * 400 "no valid session" of servers built from the SDK's examples) the session is cleared and reported as
 * `E_SESSION_EXPIRED`, through `onerror` and by rejecting `send()`; later sends fail the same way until the
 * MCP client layer sends a new `initialize`.
 *
 * Server push: the standalone GET stream opens by itself once the server accepted
 * `notifications/initialized` (option `openGetStream`, default true), or when `openGetStream()` is called.
 * A 405 means the server offers none: remembered, never retried. The stream is kept alive across drops.
 *
 * Streams that break resume by GET with `Last-Event-ID` (see `sse-stream.ts`). A POST stream that cannot be
 * resumed ends its request with a JSON-RPC error response (-32000, connection closed) delivered to
 * `onmessage`, because `send()` has long resolved and the caller would otherwise wait forever.
 *
 * Cancellation: when `notifications/cancelled` is sent for a request (the protocol layer gave up on it:
 * timeout or abort), the request's POST — its answer head or JSON body still awaited, or its SSE stream and
 * any reconnection of it — is aborted and forgotten. No response is due any more (cancellation spec), so
 * reading on would hold a connection, and a server stream slot, until one that never comes.
 *
 * The 2024-11-05 HTTP+SSE transport is never spoken: a server that only speaks it is detected at
 * `initialize` and refused with a clear error.
 *
 * Beside it: the SSE streams (sse-stream.ts), the GET stream's state (get-stream-slot.ts), the bearer
 * token and its challenges (auth-provider.ts), the endpoint and header checks (options.ts).
 */
import type { Logger } from "../../log.ts";
import { nullLogger } from "../../log.ts";
import { setLongTimeout } from "../../_internal/timer.ts";
import { withoutUndefined } from "../../_internal/without-undefined.ts";
import { AgentdError, parseError } from "../../wire/errors.ts";
import { ErrorCode, type JsonRpcMessage, type RequestId } from "../../wire/jsonrpc.ts";
import { DEFAULT_MAX_FRAME_BYTES, type FrameError, type MessageExtra, type SendOptions, type Transport } from "../types.ts";
import { authorize, fetchAuthorized, type HttpAuthProvider } from "./auth-provider.ts";
import { GetStreamSlot, type GetStreamState } from "./get-stream-slot.ts";
import { fetchSameOrigin } from "./fetch-same-origin.ts";
import {
  checkDeleteAnswer,
  httpError,
  isSessionLoss,
  mediaType,
  networkError,
  readErrorDetail,
  sessionExpiredError,
  unauthorizedError,
} from "./http-errors.ts";
import { isSseTransportServer, SSE_FALLBACK_STATUSES, sseTransportError } from "./probe-2024-11-05-sse.ts";
import { checkEndpointUrl, DEFAULT_RECONNECT, headerSecrets, type ReconnectOptions, type StreamableHttpClientOptions } from "./options.ts";
import { readJsonMessages } from "./read-body.ts";
import { cancelledRequestId, type Outgoing, outgoing } from "./outgoing-message.ts";
import { assignedSessionId, requestHeaders } from "./request-headers.ts";
import { mirrorRequestHeaders, refusalAnswer } from "./requests-2026-07-28.ts";
import { SseStream, type StreamHost } from "./sse-stream.ts";

export type { GetStreamState } from "./get-stream-slot.ts";

/** The abort reason of a request POST whose request was cancelled: its `send()` then resolves quietly. */
const CANCELLED = Symbol("request cancelled");

/** A Streamable HTTP connection to one remote MCP server. */
export class StreamableHttpClientTransport implements Transport, StreamHost {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: (error: FrameError) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  /** The MCP endpoint. */
  readonly url: URL;
  /** The server's name in errors and logs. */
  readonly name: string;
  readonly reconnect: ReconnectOptions;
  readonly maxFrameChars: number;
  readonly logger: Logger;
  private readonly fetchFn: typeof fetch;
  private readonly userHeaders: Record<string, string>;
  private readonly secrets: string[];
  private readonly autoOpenGet: boolean;
  private readonly closeTimeoutMs: number;
  private readonly auth: HttpAuthProvider | undefined;
  private session: string | undefined;
  private sessionLost: AgentdError | undefined;
  private protocolVersion: string | undefined;
  private started = false;
  private closing: Promise<void> | undefined;
  private readonly inflight = new Set<AbortController>();
  /** Request POSTs whose answer (head or JSON body) is still awaited, by request id. */
  private readonly requestPosts = new Map<RequestId, AbortController>();
  private readonly streams = new Set<SseStream>();
  private readonly sentSession = new WeakMap<Response, string | undefined>();
  private readonly get = new GetStreamSlot();

  constructor(url: URL | string, options: StreamableHttpClientOptions = {}) {
    this.url = new URL(url);
    this.name = options.name ?? this.url.host;
    checkEndpointUrl(this.url, this.name);
    this.fetchFn = options.fetch ?? fetch;
    this.userHeaders = { ...options.headers };
    this.secrets = headerSecrets(this.userHeaders);
    this.reconnect = { ...DEFAULT_RECONNECT, ...withoutUndefined(options.reconnect) };
    this.autoOpenGet = options.openGetStream ?? true;
    this.maxFrameChars = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 3000;
    this.auth = options.auth;
    this.logger = (options.logger ?? nullLogger).child({ server: this.name });
  }

  /** The session id the server assigned at initialize, if any. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** SSE streams being read or reconnecting: POST response streams and the standalone GET stream. */
  get openStreams(): number {
    return this.streams.size;
  }

  /** Where the standalone GET stream is (`unsupported` once the server answered 405). */
  get getStreamState(): GetStreamState {
    return this.get.state;
  }

  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", "StreamableHttpClientTransport already started");
    this.started = true; // nothing to open: the first POST (initialize) starts the session
  }

  setProtocolVersion(revision: string): void {
    this.protocolVersion = revision;
  }

  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closing) throw this.closedError();
    if (!this.started) throw new AgentdError("E_TRANSPORT", "start() the transport before sending");
    const out = outgoing(message);
    if (out.isInitialize) this.beginSession();
    else if (this.sessionLost) throw this.sessionLost;
    if (out.method === "notifications/cancelled") this.forgetRequest(message);
    if (out.requestId !== undefined && options?.resumptionToken) {
      const stream = new SseStream("post", this, new AbortController(), out.requestId, options.onresumptiontoken);
      return this.startStream(stream, undefined, options.resumptionToken);
    }
    const ctrl = new AbortController();
    this.inflight.add(ctrl);
    if (out.requestId !== undefined) this.requestPosts.set(out.requestId, ctrl);
    let handedOff = false;
    try {
      const response = await this.post(message, out, ctrl, options?.headers);
      if (response !== undefined) handedOff = await this.receiveAnswer(response, out, ctrl, options);
    } finally {
      if (!handedOff) {
        this.inflight.delete(ctrl);
        this.forgetPost(out.requestId, ctrl);
      }
    }
  }

  /**
   * POST one message: the response to read on, or undefined when nothing more is to be done (the request
   * was cancelled, or a stateless server's refusal was delivered as its answer). A failed response throws.
   */
  private async post(
    message: JsonRpcMessage,
    out: Outgoing,
    ctrl: AbortController,
    extraHeaders: Record<string, string> | undefined,
  ): Promise<Response | undefined> {
    const sessionSent = out.isInitialize ? undefined : this.session;
    const headers = this.headers("POST", out.isInitialize);
    mirrorRequestHeaders(headers, out.isInitialize ? undefined : this.protocolVersion, message as { method?: unknown; params?: unknown });
    if (extraHeaders !== undefined) for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, value);
    let response: Response;
    try {
      const init = { method: "POST", headers, body: JSON.stringify(message), signal: ctrl.signal };
      response = await fetchAuthorized(this.auth, (i) => fetchSameOrigin(this.fetchFn, this.url, i, this.name), init, ctrl.signal);
    } catch (e) {
      if (ctrl.signal.reason === CANCELLED) return undefined;
      if (this.closing) throw this.closedError(e);
      throw AgentdError.isInstance(e) ? e : networkError(this.name, "POST", e);
    }
    const answer = await refusalAnswer(response, out.requestId, out.isInitialize, this.protocolVersion, this.maxFrameChars, this.name);
    if (answer !== undefined) {
      await response.body?.cancel().catch(() => {});
      this.deliver(answer);
      return undefined;
    }
    if (!response.ok) throw await this.failure(response, "POST", sessionSent, out.isInitialize);
    if (out.isInitialize) this.adoptSession(response);
    return response;
  }

  /**
   * Read a POST's answer: nothing for a notification or response (202), an SSE stream handed to its own
   * reader, or a JSON body delivered now. Returns whether the POST was handed off to a stream.
   */
  private async receiveAnswer(response: Response, out: Outgoing, ctrl: AbortController, options?: SendOptions): Promise<boolean> {
    if (out.requestId === undefined) {
      await response.body?.cancel().catch(() => {});
      if (out.method === "notifications/initialized" && this.autoOpenGet) void this.openGetStream();
      return false;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (type === "text/event-stream" && response.body) {
      this.inflight.delete(ctrl);
      this.forgetPost(out.requestId, ctrl);
      if (ctrl.signal.reason === CANCELLED) await response.body.cancel().catch(() => {});
      else this.startStream(new SseStream("post", this, ctrl, out.requestId, options?.onresumptiontoken), response);
      return true;
    }
    if (type === "application/json") {
      const messages = await readJsonMessages(response, this.maxFrameChars, this.name).catch((e) => {
        if (ctrl.signal.reason === CANCELLED) return [];
        throw this.closing ? this.closedError(e) : e;
      });
      for (const m of messages) this.deliver(m);
      return false;
    }
    await response.body?.cancel().catch(() => {});
    throw new AgentdError(
      "E_TRANSPORT",
      `MCP server '${this.name}' answered a request with HTTP ${response.status} and content type '${type || "none"}'; ` +
        "expected application/json or text/event-stream",
    );
  }

  /**
   * Open the standalone GET stream now (it also opens by itself after `notifications/initialized` unless the
   * `openGetStream` option is false). Resolves with the outcome of the first attempt: `open`, `unsupported`
   * (405), `reconnecting` (a transient failure; it keeps trying) or `failed`.
   */
  openGetStream(): Promise<GetStreamState> {
    if (this.closing || this.get.state === "unsupported") return Promise.resolve(this.closing ? "off" : this.get.state);
    return this.get.open(
      () => new SseStream("get", this),
      (stream) => this.startStream(stream),
    );
  }

  /** End the session on the server (DELETE; 405 and 404 tolerated) and forget it locally. */
  async terminateSession(): Promise<void> {
    if (this.session === undefined) return;
    const ctrl = new AbortController();
    this.inflight.add(ctrl);
    try {
      await this.deleteSession(ctrl.signal);
    } finally {
      this.inflight.delete(ctrl);
    }
  }

  /** Abort every fetch and stream, DELETE the session if one exists (bounded wait), then `onclose`. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const s of this.streams) s.abort();
      for (const c of this.inflight) c.abort();
      this.get.set("off");
      if (this.session !== undefined) {
        const ctrl = new AbortController();
        const cancelTimer = setLongTimeout(() => ctrl.abort(), this.closeTimeoutMs);
        try {
          await this.deleteSession(ctrl.signal);
        } catch (e) {
          this.logger.debug("mcp.http.session.delete_failed", { error: e as Error });
        } finally {
          cancelTimer();
        }
      }
      this.onclose?.();
    })();
    return this.closing;
  }

  // ---- StreamHost: what the SSE streams call back into ----

  async openGet(lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers = this.headers("GET", false);
    if (lastEventId !== undefined) headers.set("last-event-id", lastEventId);
    await authorize(this.auth, headers, signal);
    const response = await fetchSameOrigin(this.fetchFn, this.url, { method: "GET", headers, signal }, this.name);
    this.sentSession.set(response, headers.get("mcp-session-id") ?? undefined);
    return response;
  }

  async rejected(response: Response, stream: SseStream): Promise<"retry" | Error> {
    const { status } = response;
    if (status === 405) {
      await response.body?.cancel().catch(() => {});
      if (stream.kind === "get") {
        this.logger.info("mcp.http.get.unsupported", {});
        if (stream === this.get.stream) this.get.set("unsupported");
      }
      const what = stream.kind === "get" ? "offers no server-push stream" : "refused to resume a broken response stream";
      return new AgentdError("E_CONNECTION_CLOSED", `MCP server '${this.name}' ${what} (HTTP 405 on GET)`);
    }
    const error = await this.failure(response, "GET", this.sentSession.get(response));
    if (error.code === "E_TRANSPORT" && error.retryable) return "retry";
    if (error.code !== "E_SESSION_EXPIRED") this.error(error); // expiry was reported once, by failure()
    return error;
  }

  deliver(message: unknown): void {
    if (this.closing) return;
    try {
      this.onmessage?.(message, this.session === undefined ? undefined : { sessionId: this.session });
    } catch (e) {
      this.error(e instanceof Error ? e : new Error(String(e)));
    }
  }

  frameError(data: string): void {
    if (this.closing) return;
    this.onframeerror?.({ error: parseError(`SSE event data is not JSON (${data.length} characters)`), recoverable: true });
  }

  error(error: Error): void {
    if (!this.closing) this.onerror?.(error);
  }

  finished(stream: SseStream, lost?: Error): void {
    this.streams.delete(stream);
    this.get.finished(stream);
    if (lost && stream.requestId !== undefined) this.failRequest(stream.requestId, lost);
  }

  // ---- internals ----

  private headers(method: "POST" | "GET" | "DELETE", initialize: boolean): Headers {
    // An initialize starts a new session: it carries neither the old session id nor a negotiated version.
    return requestHeaders(this.userHeaders, method, initialize ? {} : { session: this.session, protocolVersion: this.protocolVersion });
  }

  /** A new initialize: drop the previous session and everything that belonged to it. */
  private beginSession(): void {
    for (const s of this.streams) s.abort();
    this.get.drop();
    this.session = undefined;
    this.sessionLost = undefined;
    this.protocolVersion = undefined;
  }

  /** Take the session id an initialize response assigned (a server without sessions assigns none). */
  private adoptSession(response: Response): void {
    const id = assignedSessionId(response, this.name);
    if (id !== undefined) this.session = id;
  }

  /** Turn a failed response into the error to throw or report. Session loss is reported here, once. */
  private async failure(
    response: Response,
    httpMethod: string,
    sessionSent: string | undefined,
    probeHandshake = false,
  ): Promise<AgentdError> {
    const { status } = response;
    if (status === 401 || status === 403) {
      await response.body?.cancel().catch(() => {});
      return unauthorizedError(this.name, status);
    }
    const detail = await readErrorDetail(response, this.secrets);
    if (isSessionLoss(status, sessionSent, detail)) return this.expireSession(sessionSent, status, detail);
    if (probeHandshake && SSE_FALLBACK_STATUSES.has(status)) {
      const ctrl = new AbortController();
      this.inflight.add(ctrl);
      try {
        if (await isSseTransportServer(this.fetchFn, this.url, this.headers("GET", true), ctrl.signal, this.name))
          return sseTransportError(this.name, status);
      } finally {
        this.inflight.delete(ctrl);
      }
    }
    return httpError(this.name, httpMethod, status, detail);
  }

  private expireSession(sent: string | undefined, status: number, detail: string | undefined): AgentdError {
    const error = sessionExpiredError(this.name, status, detail);
    if (sent === undefined || this.session !== sent) return error; // already handled, or a new session began
    this.session = undefined;
    this.sessionLost = error;
    this.logger.warn("mcp.http.session.expired", { status });
    // Streams of the dead session will never complete: end them, failing their requests now.
    for (const s of this.streams) {
      s.abort();
      if (s.requestId !== undefined && !s.answered) this.failRequest(s.requestId, error);
    }
    this.get.drop();
    this.error(error);
    return error;
  }

  private async deleteSession(signal: AbortSignal): Promise<void> {
    const headers = this.headers("DELETE", false);
    await authorize(this.auth, headers, signal);
    const response = await fetchSameOrigin(this.fetchFn, this.url, { method: "DELETE", headers, signal }, this.name);
    this.session = undefined;
    for (const s of this.streams) s.abort();
    await checkDeleteAnswer(response, this.name, this.secrets);
  }

  private startStream(stream: SseStream, first?: Response, resumeFrom?: string): void {
    this.streams.add(stream);
    stream.run(first, resumeFrom).catch((e) => this.error(e instanceof Error ? e : new Error(String(e))));
  }

  /**
   * A `notifications/cancelled` is going out: abort the cancelled request's POST (answer still awaited) or
   * its response stream (reading or waiting to reconnect), and forget it. Runs before the notification is
   * sent, so it holds even when that POST fails.
   */
  private forgetRequest(message: JsonRpcMessage): void {
    const id = cancelledRequestId(message);
    if (id === undefined) return;
    this.requestPosts.get(id)?.abort(CANCELLED);
    for (const s of this.streams) {
      if (s.kind !== "post" || s.requestId !== id) continue;
      this.streams.delete(s); // now, not when its read loop notices: it is no longer ours to count
      s.abort();
    }
  }

  private forgetPost(requestId: RequestId | undefined, ctrl: AbortController): void {
    if (requestId !== undefined && this.requestPosts.get(requestId) === ctrl) this.requestPosts.delete(requestId);
  }

  /** The request's response will never come: answer it locally so the caller does not wait forever. */
  private failRequest(id: RequestId, cause: Error): void {
    const data = AgentdError.isInstance(cause) ? { code: cause.code } : undefined;
    this.deliver({ jsonrpc: "2.0", id, error: { code: ErrorCode.ConnectionClosed, message: cause.message, data } });
  }

  private closedError(cause?: unknown): AgentdError {
    return new AgentdError("E_CONNECTION_CLOSED", `MCP server '${this.name}': transport is closed`, { cause });
  }
}
