/**
 * What the request handlers share: the resolved configuration, the sessions, and a factory for tracked SSE
 * writers (tracked for keep-alive comments and stats).
 */
import type { Permission } from "../types.ts";
import type { AuthInfo } from "./auth.ts";
import type { ResolvedServerConfig } from "./options.ts";
import type { SessionRegistry } from "./sessions.ts";
import type { SseWriter } from "./sse-writer.ts";

/** Facts about the connection a request came on, supplied by the runtime adapter. */
export interface HttpRequestConn {
  /** The client certificate subject, when the request came through the mutual-TLS front. */
  tlsPrincipal?: string | undefined;
  /** The origin (`scheme://host[:port]`) the client reached, as a trusted proxy forwarded it (behind-proxy.ts). */
  publicOrigin?: string | undefined;
  /** A trusted proxy's forwarded header is malformed: why (the request is refused with 400). */
  malformedForwarding?: string | undefined;
  /** Lift the connection's idle timeout while a JSON-mode answer is awaited (no bytes flow until then). */
  holdOpen?: () => void;
}

/** The authenticated caller of one request. */
export interface Caller {
  authInfo: AuthInfo | undefined;
  /** The key a session is bound to: scheme and principal, or "" for an unauthenticated (loopback) endpoint. */
  principal: string;
  /** The 403 `insufficient_scope` answer for this caller lacking `permission` (mounts use it). */
  forbid?: (permission: Permission) => Response;
}

/** Shared state of the handlers. */
export interface HandlerContext {
  config: ResolvedServerConfig;
  sessions: SessionRegistry;
  /**
   * A new SSE writer for a response, counted in stats until it ends. With `keptAlive` false it gets
   * keep-alive comments only once {@link HandlerContext.streaming} says its body streams: a quick answer,
   * one string body made within its turn, never does (one set entry less to add and delete per request).
   */
  newWriter(keptAlive?: boolean): SseWriter;
  /** A writer made without keep-alives hands its body over as a stream: it gets them from now on. */
  streaming(writer: SseWriter): void;
  /** The 403 `insufficient_scope` answer for a caller lacking `permission`. */
  forbid(authInfo: AuthInfo | undefined, permission: Permission): Response;
  /** The answer to a request whose handling failed unexpectedly (logged, and a JSON-RPC 500). */
  failed(error: unknown): Response;
}
