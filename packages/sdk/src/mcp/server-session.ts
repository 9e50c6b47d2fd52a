/**
 * `ServerSession`: one client connected to an {@link McpServer} — its own protocol peer, negotiated
 * revision, client capabilities, subscriptions and log level. The Streamable HTTP server makes one per
 * HTTP session; stdio serving makes exactly one.
 *
 * Until `initialize` is answered only `initialize` and `ping` are accepted. The session declares what the
 * capability map derives from the server's registrations at that moment, and installs the handlers for
 * exactly those capabilities (anything else is -32601).
 */
import type { Transport } from "../transport/types.ts";
import { invalidRequest, McpError } from "../wire/errors.ts";
import { ErrorCode, type RequestId } from "../wire/jsonrpc.ts";
import { isSupportedRevision, LATEST_REVISION, type ProtocolRevision } from "../wire/codec.ts";
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
} from "../wire/index.ts";
import { SERVER_INBOUND, serverEmitsNotifications } from "./capabilities.ts";
import { Emitter } from "./emitter.ts";
import { Protocol } from "./protocol.ts";
import type { McpServer } from "./server.ts";
import { serverHandlers } from "./server-handlers.ts";
import type { NotificationOptions, RequestContext, RequestOptions } from "./types.ts";

/** RFC 5424 severities in MCP's order, lowest first. */
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** The context a server handler (tool, resource, prompt) receives. */
export interface ServerContext extends RequestContext {
  /** The session the request arrived in. */
  session: ServerSession;
  /** Send `notifications/message` to this session (when D9 is on and the level passes the client's filter). */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
}

/** Events of a {@link ServerSession}. */
export interface ServerSessionEvents {
  /** The client sent `notifications/initialized`. */
  initialized: void;
  rootsListChanged: void;
  close: void;
}

/** One client of a server. */
export class ServerSession {
  readonly protocol: Protocol;
  readonly events: Emitter<ServerSessionEvents>;
  /** Resource URIs this client subscribed to. */
  readonly subscriptions = new Set<string>();
  /** The minimum level of `notifications/message` the client asked for (everything until it asks). */
  logLevel: LoggingLevel | undefined;
  private info?: { clientInfo: Implementation; capabilities: ClientCapabilities; declared: ServerCapabilities };
  private ready = false;
  private readonly fallbackId: string;

  constructor(
    readonly server: McpServer,
    transport: Transport,
  ) {
    this.fallbackId = crypto.randomUUID();
    this.events = new Emitter((event, error) => server.logger.warn("mcp.listener_error", { listener: event, error }));
    this.protocol = new Protocol(transport, {
      logger: server.logger,
      maxInflightRequests: server.options.maxInflightRequests,
      defaultTimeoutMs: server.options.requestTimeoutMs,
      gate: (method) => this.gate(method),
    });
    this.protocol.setRequestHandler("initialize", (params) => this.initialize(params));
    this.protocol.setNotificationHandler("notifications/initialized", () => {
      this.ready = true;
      this.events.emit("initialized");
    });
    this.protocol.setNotificationHandler("notifications/roots/list_changed", () => this.events.emit("rootsListChanged"));
    this.protocol.events.on("close", () => this.events.emit("close"));
  }

  /** The transport's session id (Streamable HTTP assigns it during initialize), else a random id. */
  get id(): string {
    return this.protocol.transport.sessionId ?? this.fallbackId;
  }

  /** The negotiated revision (the latest until initialize). */
  get protocolVersion(): ProtocolRevision {
    return this.protocol.revision;
  }
  /** Whether `initialize` has been answered. */
  get initialized(): boolean {
    return this.info !== undefined;
  }
  /** Whether the client sent `notifications/initialized`. */
  get isReady(): boolean {
    return this.ready;
  }
  /** The client's implementation info (after initialize). */
  get clientInfo(): Implementation | undefined {
    return this.info?.clientInfo;
  }
  /** What the client declared (`{}` before initialize). */
  get clientCapabilities(): ClientCapabilities {
    return this.info?.capabilities ?? {};
  }
  /** What this session was told the server offers (`{}` before initialize). */
  get declared(): ServerCapabilities {
    return this.info?.declared ?? {};
  }
  /** Whether the transport has closed. */
  get closed(): boolean {
    return this.protocol.closed;
  }

  /** Send a request to the client. */
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T> {
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
   * Send `notifications/message` if D9 is on and `level` passes the client's filter. Logging is the one
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

  /** Wrap a protocol context into the context server handlers receive (D9 gates progress). */
  context(ctx: RequestContext): ServerContext {
    const emits = serverEmitsNotifications(this.server.capabilityConfig);
    return {
      ...ctx,
      session: this,
      sendProgress: emits ? ctx.sendProgress : async () => {},
      log: (level, data, logger) => this.log(level, data, logger, ctx.requestId),
    };
  }

  private gate(method: string): McpError | undefined {
    if (this.info === undefined && method !== "initialize" && method !== "ping")
      return invalidRequest(`session not initialized: send initialize before ${method}`);
    if (this.info !== undefined && method === "initialize") return invalidRequest("session already initialized");
    return undefined;
  }

  private initialize(params: Record<string, unknown>): Record<string, unknown> {
    const requested = params.protocolVersion;
    // Lifecycle spec: answer with the client's version when we speak it, else with our latest.
    const revision: ProtocolRevision = isSupportedRevision(requested) ? requested : LATEST_REVISION;
    const declared = this.server.capabilities();
    this.info = {
      clientInfo: params.clientInfo as Implementation,
      capabilities: (params.capabilities ?? {}) as ClientCapabilities,
      declared,
    };
    this.protocol.setRevision(revision);
    this.protocol.transport.setProtocolVersion?.(revision);
    const handlers = serverHandlers(this.server, this);
    for (const [method, handler] of Object.entries(handlers)) {
      const needs = SERVER_INBOUND[method];
      if (!needs || needs(declared)) this.protocol.setRequestHandler(method, handler);
    }
    this.server.logger.debug("mcp.session_initialized", {
      session: this.id,
      client: this.info.clientInfo?.name,
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
