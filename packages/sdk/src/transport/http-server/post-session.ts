/**
 * What every POST that delivers messages into a session needs, whichever revision: a new session (with the
 * caps and set-up failures answered) and the `MessageExtra` of the delivered messages.
 */
import type { MessageKind, RequestId } from "../../wire/jsonrpc.ts";
import type { MessageExtra } from "../types.ts";
import type { Caller, HandlerContext } from "./context.ts";
import { upstreamHeaders } from "./headers.ts";
import { jsonRpcHttpError, TRANSPORT_ERROR } from "./responses.ts";
import type { Session } from "./session.ts";

/**
 * The `MessageExtra` of a POST; the header map is only built if the receiver reads it (own accessor: a
 * spread copy carries it). The first read replaces the accessor with the map itself, so the getter keeps
 * nothing but the request's headers (one scope per POST, not two for a memo beside them).
 */
export function messageExtra(sessionId: string, caller: Caller, headers: Headers, classified?: MessageKind): MessageExtra {
  return {
    sessionId,
    authInfo: caller.authInfo,
    get headers(): Record<string, string> {
      const built = upstreamHeaders(headers);
      Object.defineProperty(this, "headers", { value: built, enumerable: true, configurable: true, writable: true });
      return built;
    },
    classified,
  };
}

/**
 * Create a session and let the caller connect its MCP server to it: for an `initialize`, or for one
 * stateless 2026-07-28 request (`requestId` then names it in the error answers). Refusals are the answers
 * to send: 429 past the principal's cap, 503 past the server's, 500 when set-up failed.
 */
export async function startSession(ctx: HandlerContext, caller: Caller, requestId: RequestId | null = null): Promise<Session | Response> {
  const session = ctx.sessions.create(caller.principal);
  if (typeof session !== "string") session.authInfo = caller.authInfo;
  if (session === "principal-full")
    return jsonRpcHttpError(
      429,
      TRANSPORT_ERROR,
      `Too Many Requests: this principal already holds ${ctx.config.limits.maxSessionsPerPrincipal} sessions, each with an open stream or request; end some with DELETE`,
      { "retry-after": "5" },
      requestId,
    );
  if (session === "server-full")
    return jsonRpcHttpError(503, TRANSPORT_ERROR, "Service Unavailable: too many sessions", { "retry-after": "5" }, requestId);
  try {
    await ctx.config.onsession(session.transport);
  } catch (e) {
    ctx.config.logger.error("http.session.setup_failed", { error: e instanceof Error ? e.message : String(e) });
    session.close("onsession failed");
    return jsonRpcHttpError(500, TRANSPORT_ERROR, "Internal error: could not start a session", undefined, requestId);
  }
  if (session.closed) return jsonRpcHttpError(500, TRANSPORT_ERROR, "Internal error: the session ended during setup", undefined, requestId);
  return session;
}
