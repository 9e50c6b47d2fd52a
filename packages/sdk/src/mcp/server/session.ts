/**
 * `ServerSession`: one client connected to an {@link McpServer} — its own protocol peer, negotiated
 * revision, client capabilities, subscriptions and log level. The Streamable HTTP server makes one per
 * HTTP session; stdio serving makes exactly one.
 *
 * Until `initialize` is answered only `initialize` and `ping` are accepted. The session declares what the
 * capability map derives from the server's registrations at that moment, and answers exactly those
 * capabilities' methods (anything else is -32601). Its handlers are the server's shared table
 * (`handlers.ts`); everything per session is created on first use, since an idle session of a
 * Streamable HTTP server should cost little more than its connection. A stateless session's listens are
 * session-listens.ts.
 */
import type { Transport } from "../../transport/types.ts";
import { invalidRequest, McpError } from "../../wire/errors.ts";
import { ErrorCode, type RequestId } from "../../wire/jsonrpc.ts";
import { isHandshakeRevision, LATEST_REVISION, type StatelessRevision, type ProtocolRevision } from "../../wire/codec.ts";
import { STATELESS_META } from "../../wire/schemas/stateless-meta.ts";
import type { SubscriptionFilter } from "../../wire/types/methods-2026-07-28.generated.ts";
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Implementation,
  LoggingLevel,
  Root,
  ServerCapabilities,
} from "../../wire/index.ts";
import { serverEmitsNotifications } from "../capabilities.ts";
import { Emitter, listenerErrorReporter } from "../protocol/emitter.ts";
import { Protocol } from "../protocol/protocol.ts";
import { inputRequestBridge } from "./input-required.ts";
import { checkStatelessVersion, requestedVersion, requestLogLevel } from "./stateless-2026-07-28.ts";
import { SessionListens } from "./session-listens.ts";
import { sharedClientInfo } from "./shared-client-info.ts";
import type { McpServer } from "./server.ts";
import type { NotificationOptions, RequestContext, RequestOptions } from "../protocol/types.ts";

/** RFC 5424 severities in MCP's order, lowest first. */
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** The context a server handler (tool, resource, prompt) receives. */
export interface ServerContext extends RequestContext {
  /** The session the request arrived in. */
  session: ServerSession;
  /** Send `notifications/message` to this session (when server notifications are on and the level passes the client's filter). */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** What the client declared: in `initialize`, or (2026-07-28) in this request's `_meta`. */
  clientCapabilities: ClientCapabilities;
}

/** Events of a {@link ServerSession}. */
export interface ServerSessionEvents {
  /** The client sent `notifications/initialized`. */
  initialized: void;
  rootsListChanged: void;
  close: void;
}

/** No capabilities (shared, frozen). */
const NO_CAPABILITIES: Readonly<Record<string, never>> = Object.freeze({});

/** `sendProgress` where server notifications are off: does nothing (one function for every request). */
const NO_PROGRESS: ServerContext["sendProgress"] = async () => {};

/** Nothing subscribed (shared by every session that never subscribes). */
const NO_SUBSCRIPTIONS: ReadonlySet<string> = new Set();

/** One client of a server. */
export class ServerSession {
  readonly protocol: Protocol;
  /** The minimum level of `notifications/message` the client asked for (everything until it asks). */
  declare logLevel: LoggingLevel | undefined;
  // Set by initialize (fields, not one object: a server may hold thousands of idle sessions).
  private clientInfoValue: Implementation | undefined;
  private clientCaps: ClientCapabilities | undefined;
  private declaredCaps: ServerCapabilities | undefined;
  private ready = false;
  declare private fallbackId: string | undefined;
  declare private emitter: Emitter<ServerSessionEvents> | undefined;
  declare private subscribed: Set<string> | undefined;
  /** Set when the first request carried modern `_meta` (2026-07-28): every request then stands alone. */
  declare private statelessRevision: StatelessRevision | undefined;
  /** Open `subscriptions/listen` requests (modern sessions). */
  declare private listening: SessionListens | undefined;

  constructor(
    readonly server: McpServer,
    transport: Transport,
  ) {
    this.protocol = new Protocol(transport, { owner: this }, server.protocolSettings);
  }

  /** Events of this session. */
  get events(): Emitter<ServerSessionEvents> {
    return (this.emitter ??= new Emitter(listenerErrorReporter(this.server.logger)));
  }

  /** Resource URIs this client subscribed to. */
  get subscriptions(): ReadonlySet<string> {
    return this.subscribed ?? NO_SUBSCRIPTIONS;
  }

  /** The transport's session id (Streamable HTTP assigns it during initialize), else a random id. */
  get id(): string {
    return this.protocol.transport.sessionId ?? (this.fallbackId ??= crypto.randomUUID());
  }

  /** The negotiated revision (the latest until initialize). */
  get protocolVersion(): ProtocolRevision {
    return this.protocol.revision;
  }
  /** Whether this session speaks a stateless revision (its first request carried modern `_meta`). */
  get modern(): boolean {
    return this.statelessRevision !== undefined;
  }
  /** Whether `initialize` has been answered. */
  get initialized(): boolean {
    return this.declaredCaps !== undefined;
  }
  /** Whether the client sent `notifications/initialized`. */
  get isReady(): boolean {
    return this.ready;
  }
  /** The client's implementation info (after initialize). */
  get clientInfo(): Implementation | undefined {
    return this.clientInfoValue;
  }
  /** What the client declared (`{}` before initialize). */
  get clientCapabilities(): ClientCapabilities {
    return this.clientCaps ?? NO_CAPABILITIES;
  }
  /** What this session was told the server offers (`{}` before initialize; what the server offers now when modern). */
  get declared(): ServerCapabilities {
    if (this.statelessRevision !== undefined) return this.server.capabilitiesFor(this.statelessRevision);
    return this.declaredCaps ?? NO_CAPABILITIES;
  }
  /** Whether the transport has closed. */
  get closed(): boolean {
    return this.protocol.closed;
  }

  /** Send a request to the client. A stateless session has none to send (MRTR spec): it fails with -32601. */
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T> {
    if (this.statelessRevision !== undefined)
      return Promise.reject(
        new McpError(
          ErrorCode.MethodNotFound,
          `${method} cannot be sent to a ${this.statelessRevision} client: servers send no requests in that revision`,
        ),
      );
    return this.protocol.request<T>(method, params, options);
  }

  /** Send a notification to the client. */
  notify(method: string, params?: Record<string, unknown>, options?: NotificationOptions): Promise<void> {
    return this.protocol.notify(method, params, options);
  }

  /** Ask the client's model for a completion (`sampling/createMessage`). The client's answer, or its error. */
  createMessage(params: CreateMessageRequestParams, options?: RequestOptions): Promise<CreateMessageResult> {
    return this.request<CreateMessageResult>("sampling/createMessage", params, options);
  }

  /** Ask the client's user for input (`elicitation/create`). */
  elicit(params: ElicitRequestParams, options?: RequestOptions): Promise<ElicitResult> {
    return this.request<ElicitResult>("elicitation/create", params, options);
  }

  /** The client's roots (`roots/list`). */
  async listRoots(options?: RequestOptions): Promise<Root[]> {
    return (await this.request<{ roots: Root[] }>("roots/list", undefined, options)).roots;
  }

  /** Ping the client. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.request("ping", undefined, options);
  }

  /**
   * Send `notifications/message` if server notifications are on and `level` passes the client's filter. Logging is the one
   * thing allowed before `notifications/initialized` (lifecycle spec), so only initialize gates it.
   */
  async log(level: LoggingLevel, data: unknown, logger?: string, relatedRequestId?: RequestId): Promise<void> {
    if (!this.initialized || !this.declared.logging || !serverEmitsNotifications(this.server.capabilityConfig)) return;
    if (this.logLevel !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(this.logLevel)) return;
    const params: Record<string, unknown> = logger === undefined ? { level, data } : { level, logger, data };
    await this.notify("notifications/message", params, { relatedRequestId }).catch(() => {});
  }

  /** Close this session's transport. */
  async close(): Promise<void> {
    await this.protocol.close();
  }

  /** Start the protocol (called by {@link McpServer.connect}). */
  async start(): Promise<void> {
    await this.protocol.start();
  }

  /**
   * The context server handlers receive, from the protocol's context of the request (server notifications
   * gate progress). A handshake-era session completes the protocol's context in place — it is the request's
   * own object, made for this one handler, and a second object with its own `signal` accessor per request
   * cost as much as the first — appending `session`, `log` and `clientCapabilities` in the order a wrapper
   * listed them, so its keys and values are the same. Statelessly, `sendRequest` asks for input through the
   * request's result instead (`server-input.ts`): pass the params; that context is a wrapper as before.
   */
  context(ctx: RequestContext, params?: Record<string, unknown>): ServerContext {
    if (this.statelessRevision === undefined) {
      const own = ctx as ServerContext;
      if (own.session === this) return own;
      if (!serverEmitsNotifications(this.server.capabilityConfig)) own.sendProgress = NO_PROGRESS;
      own.session = this;
      own.log = (level, data, logger) => this.log(level, data, logger, ctx.requestId);
      own.clientCapabilities = this.clientCapabilities;
      return own;
    }
    // Listed, not spread: a spread would read `signal` and so make it for every request.
    const emits = serverEmitsNotifications(this.server.capabilityConfig);
    return {
      requestId: ctx.requestId,
      method: ctx.method,
      get signal() {
        return ctx.signal;
      },
      meta: ctx.meta,
      progressToken: ctx.progressToken,
      sessionId: ctx.sessionId,
      authInfo: ctx.authInfo,
      sendNotification: ctx.sendNotification,
      sendRequest: inputRequestBridge(ctx, params),
      sendProgress: emits ? ctx.sendProgress : NO_PROGRESS,
      session: this,
      log: (level, data, logger) => this.logForRequest(ctx, level, data, logger),
      clientCapabilities: (ctx.meta[STATELESS_META.clientCapabilities] ?? NO_CAPABILITIES) as ClientCapabilities,
    };
  }

  /**
   * `notifications/message` in a stateless session: only for a request that set `…/logLevel` in its `_meta`,
   * at or above that level, on that request's stream (logging spec, "Per-request log level").
   */
  private async logForRequest(ctx: RequestContext, level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    const wanted = requestLogLevel(ctx);
    if (wanted === undefined || !this.declared.logging || !serverEmitsNotifications(this.server.capabilityConfig)) return;
    if (LEVELS.indexOf(level) < LEVELS.indexOf(wanted as LoggingLevel)) return;
    const params: Record<string, unknown> = logger === undefined ? { level, data } : { level, logger, data };
    await this.notify("notifications/message", params, { relatedRequestId: ctx.requestId }).catch(() => {});
  }

  /** `subscriptions/listen` (stateless sessions): see {@link SessionListens.listen}. */
  listen(asked: SubscriptionFilter, ctx: RequestContext): Promise<Record<string, unknown>> {
    return (this.listening ??= new SessionListens(this)).listen(asked, ctx);
  }

  /** End every open listen gracefully: its response says the subscription closed on purpose (subscriptions spec). Returns how many. */
  endListens(): number {
    return this.listening?.endAll() ?? 0;
  }

  /** `notifications/resources/updated` for `uri`, to a subscribed client (or each listen that asked for it). */
  async resourceUpdated(uri: string): Promise<void> {
    if (this.closed) return;
    if (this.statelessRevision !== undefined) return this.listening?.resourceUpdated(uri);
    if (this.subscribed?.has(uri)) await this.notify("notifications/resources/updated", { uri }).catch(() => {});
  }

  /** `notifications/tasks` to each listen following `taskId` (its detail made once, only if one follows). */
  taskChanged(taskId: string, detail: () => Record<string, unknown>): void {
    if (this.closed || this.statelessRevision === undefined) return;
    this.listening?.taskChanged(taskId, detail);
  }

  /** `notifications/<kind>/list_changed`, if this client was told it would get them (or a listen asked). */
  listChanged(kind: "tools" | "prompts" | "resources"): void {
    if (this.closed) return;
    if (this.statelessRevision !== undefined) return this.listening?.listChanged(kind);
    const declared = this.declaredCaps?.[kind] as { listChanged?: boolean } | undefined;
    if (declared?.listChanged) this.notify(`notifications/${kind}/list_changed`).catch(() => {});
  }

  /** @internal `resources/subscribe`. */
  subscribe(uri: string): void {
    (this.subscribed ??= new Set()).add(uri);
  }

  /** @internal `resources/unsubscribe`. */
  unsubscribe(uri: string): void {
    this.subscribed?.delete(uri);
  }

  /** @internal `notifications/initialized`. */
  handleInitialized(): void {
    this.ready = true;
    this.emitter?.emit("initialized");
  }

  /** @internal The protocol closed. */
  handleClosed(): void {
    this.server.sessionClosed(this);
    this.emitter?.emit("close");
  }

  /**
   * @internal Pick the era and refuse what it does not allow. A request with modern `_meta` on a session not
   * initialized makes it stateless (once); a version we do not serve per request gets -32022. Otherwise:
   * refuse everything but `initialize` and `ping` before initialize, and a second `initialize`.
   */
  gateRequest(method: string, params?: Record<string, unknown>): McpError | undefined {
    if (this.statelessRevision !== undefined || (!this.initialized && method !== "initialize")) {
      const checked = checkStatelessVersion(requestedVersion(params));
      if (McpError.isInstance(checked)) return checked;
      if (checked !== undefined) {
        if (this.statelessRevision === undefined) this.becomeStateless(checked, params);
        return undefined;
      }
      // A modern session's request without a version: the codec names the missing `_meta` field.
      if (this.statelessRevision !== undefined)
        return method === "initialize"
          ? invalidRequest(`this connection speaks MCP ${this.statelessRevision}, which has no initialize`)
          : undefined;
    }
    if (!this.initialized && method !== "initialize" && method !== "ping")
      return invalidRequest(`session not initialized: send initialize before ${method}`);
    if (this.initialized && method === "initialize") return invalidRequest("session already initialized");
    return undefined;
  }

  private becomeStateless(revision: StatelessRevision, params: Record<string, unknown> | undefined): void {
    this.statelessRevision = revision;
    this.protocol.setRevision(revision);
    const info = (params?._meta as Record<string, unknown> | undefined)?.[STATELESS_META.clientInfo] as Implementation | undefined;
    this.clientInfoValue = info;
    this.server.logger.debug("mcp.session_modern", { session: this.id, client: info?.name, protocolVersion: revision });
  }

  /** @internal `initialize`. */
  handleInitialize(params: Record<string, unknown>): Record<string, unknown> {
    const requested = params.protocolVersion;
    // Lifecycle spec: answer with the client's version when we speak it, else with our latest.
    // 2026-07-28 and later have no initialize: a client asking for one in it gets our newest that has.
    const revision: ProtocolRevision = isHandshakeRevision(requested) ? requested : LATEST_REVISION;
    const declared = this.server.capabilitiesFor(revision);
    this.clientInfoValue = sharedClientInfo(params.clientInfo as Implementation | undefined) as Implementation;
    const caps = params.capabilities as ClientCapabilities | undefined;
    this.clientCaps = caps && Object.keys(caps).length > 0 ? caps : NO_CAPABILITIES;
    this.declaredCaps = declared;
    this.protocol.setRevision(revision);
    this.protocol.transport.setProtocolVersion?.(revision);
    this.server.logger.debug("mcp.session_initialized", {
      session: this.id,
      client: this.clientInfoValue?.name,
      protocolVersion: revision,
      requested: typeof requested === "string" ? requested : undefined,
    });
    const result: Record<string, unknown> = { protocolVersion: revision, capabilities: declared, serverInfo: this.server.serverInfo };
    if (this.server.options.instructions !== undefined) result.instructions = this.server.options.instructions;
    return result;
  }
}

/** Whether `level` is a valid MCP logging level. */
export const isLoggingLevel = (v: unknown): v is LoggingLevel => LEVELS.includes(v as LoggingLevel);

/** Resource-not-found (-32002) with the URI as data, as the resources spec shows. */
export const resourceNotFound = (uri: string) => new McpError(ErrorCode.ResourceNotFound, "Resource not found", { uri });
