/**
 * The shapes the protocol engine speaks in: options for an outbound request, the context an inbound
 * handler receives, and handler signatures. Shared by the client, the server session and anything else
 * built on {@link Protocol}.
 */
import type { MessageExtra } from "../../transport/types.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import type { ProgressToken } from "../../wire/index.ts";
import type { Protocol } from "./protocol.ts";

export type { ProgressToken };

/** One progress update as delivered to `onprogress`. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** Options for one outbound request. */
export interface RequestOptions {
  /** Abort the request: sends `notifications/cancelled` and rejects with `E_ABORTED`. */
  signal?: AbortSignal;
  /** Per-request timeout in ms (default 60 000). Reset by progress when `resetTimeoutOnProgress`. */
  timeoutMs?: number;
  /** Absolute ceiling in ms from the moment of sending, never extended by progress. */
  maxTotalTimeoutMs?: number;
  /** Whether each progress notification restarts the per-request timeout (default true). */
  resetTimeoutOnProgress?: boolean;
  /** Progress callback. When given, a `progressToken` is attached to `params._meta`. */
  onprogress?: (progress: Progress) => void;
  /** The inbound request this one is sent on behalf of (Streamable HTTP routes it onto that stream). */
  relatedRequestId?: RequestId;
  /** Extra `_meta` entries merged into `params._meta`. */
  meta?: Record<string, unknown>;
  /** Told the JSON-RPC id of the request as it is sent (a `subscriptions/listen` id names its subscription). */
  onRequestId?: (id: RequestId) => void;
  /** Extra HTTP request headers (Streamable HTTP: a tool's mirrored `Mcp-Param-*`); other transports ignore them. */
  headers?: Record<string, string>;
}

/** Options for one outbound notification. */
export interface NotificationOptions {
  /** The inbound request this notification belongs to. */
  relatedRequestId?: RequestId;
}

/** What an inbound request handler receives besides the params. */
export interface RequestContext {
  /** The JSON-RPC id of the inbound request. */
  requestId: RequestId;
  /** The method being handled. */
  method: string;
  /** Aborted when the peer sends `notifications/cancelled` for this request, or the connection closes. */
  signal: AbortSignal;
  /** `params._meta` of the request (`{}` when absent). */
  meta: Record<string, unknown>;
  /** The peer's progress token, when it asked for progress. */
  progressToken?: ProgressToken;
  /** The transport session the request arrived in (Streamable HTTP). */
  sessionId?: string;
  /** The authenticated principal, when the transport authenticated the peer. */
  authInfo?: MessageExtra["authInfo"];
  /** Send a notification related to this request. */
  sendNotification(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Send a request to the peer related to this request; aborted with this request. */
  sendRequest<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<T>;
  /** Report progress; a no-op when the peer sent no progress token. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
}

/**
 * Handles one inbound request; returns the result object or throws (an `McpError` reaches the peer as is).
 * `peer` is the protocol the request arrived on (handlers shared by many peers find their session there).
 */
export type McpRequestHandler = (
  params: Record<string, unknown>,
  ctx: RequestContext,
  peer: Protocol,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Handles one inbound notification. Errors are logged, never answered. */
export type McpNotificationHandler = (
  params: Record<string, unknown>,
  extra: MessageExtra | undefined,
  peer: Protocol,
) => void | Promise<void>;

/** Options for a registered request handler. */
export interface HandlerOptions {
  /**
   * A method outside MCP (an extension or the internal control channel): the codec neither knows nor
   * validates it, and the handler validates its own params.
   */
  custom?: boolean;
}
