/**
 * The one Transport interface every transport implements: stdio child, stdio self, in-memory pair,
 * Streamable HTTP client, and the per-session transports of the Streamable HTTP server.
 *
 * A transport moves whole JSON-RPC messages. It owns framing (NDJSON, SSE, length-prefixed) and JSON
 * parsing; it never validates the JSON-RPC envelope — that is the protocol layer's job, so every transport
 * answers bad frames the same way.
 */
import type { JsonRpcMessage, MessageKind, RequestId } from "../wire/jsonrpc.ts";
import type { McpError } from "../wire/errors.ts";

/** Options for one outbound message. */
export interface SendOptions {
  /**
   * The inbound request this message belongs to (a response, or a notification/request sent while handling
   * it). Streamable HTTP uses it to put the message on that request's SSE stream.
   */
  relatedRequestId?: RequestId;
  /** Streamable HTTP client: resume a broken response stream from this event id. */
  resumptionToken?: string;
  /** Streamable HTTP client: called with each new event id seen on the response stream. */
  onresumptiontoken?: (token: string) => void;
  /** Streamable HTTP client: extra request headers of this POST (2026-07-28 `Mcp-Param-*`); ignored elsewhere. */
  headers?: Record<string, string>;
}

/**
 * What a principal may do on `agentd serve`: `run` (start and cancel its own work: agent.run, tasks, A2A
 * send), `status` (read its own runs' status: agent:// resources, lists), `operator` (see and act on
 * every principal's work).
 */
export type Permission = "run" | "status" | "operator";

/** What a transport knows about where an inbound message came from. */
export interface MessageExtra {
  /** The session the message arrived in (Streamable HTTP). */
  sessionId?: string;
  /**
   * The authenticated principal, when the transport authenticated the peer (bearer token name, mTLS
   * subject); `role: "operator"` when the credential was configured as an operator's.
   */
  authInfo?: {
    principal: string;
    scheme: "bearer" | "mtls" | "jwt";
    role?: "operator";
    /** What the credential allows, when it says (scopes mapped by the issuer's config, a static token's config). */
    permissions?: readonly Permission[];
    /** The OAuth issuer of the token (scheme `jwt`): which scopes grant what is that issuer's to say. */
    issuer?: string;
  };
  /** Request headers (HTTP transports), lower-cased names. Never logged. */
  headers?: Record<string, string>;
  /**
   * @internal What the transport already found the message to be, when it classified it to route it (an
   * HTTP POST of one message): the protocol then does not classify it again. Only for that very value.
   */
  classified?: MessageKind | undefined;
}

/** A framing problem the transport detected before any JSON-RPC envelope existed (bad JSON, oversized frame). */
export interface FrameError {
  /** The JSON-RPC error to answer with, addressed to id null. */
  error: McpError;
  /** Whether the connection remains usable (it should, for a bad or oversized frame). */
  recoverable: boolean;
  /** An oversized frame recognised as a response: the id of the request it answers (fail it now). */
  responseTo?: RequestId;
}

/** A bidirectional message channel. */
export interface Transport {
  /** Begin delivering messages. Resolves once the channel is open. Call once. */
  start(): Promise<void>;
  /** Send one message. Rejects if the transport is closed or the write fails. */
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /** Close the channel and release its resources. Idempotent. `onclose` fires once. */
  close(): Promise<void>;
  /** Inbound JSON values, already JSON-parsed but not yet validated as JSON-RPC. */
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  /** A frame that could not be turned into a JSON value. The protocol layer answers it (id null). */
  onframeerror?: (error: FrameError) => void;
  /** A transport-level failure (write error, child died, HTTP failure). Informational; `onclose` follows if fatal. */
  onerror?: (error: Error) => void;
  /** The channel closed (by either side). */
  onclose?: () => void;
  /**
   * Why the channel closed, when the transport knows more than "closed" (a stdio server that exited: its
   * code and last stderr lines). Set before `onclose` fires; requests still waiting fail with it.
   */
  readonly closeReason?: Error | undefined;
  /** The session id, once one exists (Streamable HTTP). */
  readonly sessionId?: string | undefined;
  /**
   * The authenticated peer, when every message on this transport comes from one principal (a Streamable
   * HTTP session is bound to the credentials that created it). Undefined: unauthenticated.
   */
  readonly authInfo?: MessageExtra["authInfo"];
  /**
   * Tell the transport which protocol revision was negotiated (Streamable HTTP sends it as
   * `MCP-Protocol-Version` on every later request).
   */
  setProtocolVersion?(revision: string): void;
  /**
   * Optional: take the receiving peer as one object, called through its methods, instead of the four `on…`
   * callbacks (a server holding thousands of idle sessions then makes no closures per session). A transport
   * with a peer attached leaves the callbacks alone.
   */
  attach?(peer: TransportPeer): void;
}

/** What a transport calls on the peer that {@link Transport.attach}ed itself: the `on…` callbacks as methods. */
export interface TransportPeer {
  /** As {@link Transport.onmessage}. */
  receive(message: unknown, extra?: MessageExtra): void;
  /** As {@link Transport.onframeerror}. */
  frameError(error: FrameError): void;
  /** As {@link Transport.onerror}. */
  transportError(error: Error): void;
  /** As {@link Transport.onclose}. */
  transportClosed(): void;
}

/**
 * The settled promise a transport's `send` answers when the message was taken at once (written, queued
 * or routed). Shared, so a sender that sees it knows there is no failure to come and attaches no handler:
 * a rejection reaction per message was a promise and a reaction on every request and reply.
 */
export const SENT: Promise<void> = Promise.resolve();

/** Default maximum size of one inbound frame (bytes). Configurable per transport. */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/**
 * Default bound on answers written to a stream transport but not yet taken by the peer (characters, about
 * bytes for JSON): past it the transport stops reading input until the peer has read half of it.
 */
export const DEFAULT_OUTPUT_HIGH_WATER_MARK = 1024 * 1024;
