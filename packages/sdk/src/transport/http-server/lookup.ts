/**
 * Resolving the `Mcp-Session-Id` of a request that is not `initialize`: 400 when missing, 404 when unknown,
 * ended, or created by another principal, 400 when `MCP-Protocol-Version` is invalid for the session.
 */
import type { Caller, HandlerContext } from "./context.ts";
import { checkProtocolVersion } from "./headers.ts";
import { badRequest, sessionNotFound } from "./responses.ts";
import type { Session } from "./session.ts";

/**
 * The session named by the request, or the error Response to answer with. A caller that already read the
 * `Mcp-Session-Id` and `MCP-Protocol-Version` headers passes them (each header read costs a lookup). The
 * request is recorded as the session's activity unless `touch` is false (the caller then records it).
 */
export function lookupSession(
  ctx: HandlerContext,
  req: Request,
  caller: Caller,
  sessionId?: string | null,
  versionHeader?: string | null,
  touch = true,
): Session | Response {
  const id = sessionId === undefined ? req.headers.get("mcp-session-id") : sessionId;
  if (id === null || id === "") return badRequest("Bad Request: Mcp-Session-Id header is required");
  const session = ctx.sessions.get(id, caller.principal);
  if (!session) return sessionNotFound();
  const version = versionHeader === undefined ? req.headers.get("mcp-protocol-version") : versionHeader;
  const versionError = checkProtocolVersion(version, session.protocolVersion);
  if (versionError) return badRequest(`Bad Request: ${versionError}`);
  if (touch) session.touch();
  return session;
}

/** Headers of an SSE response (defined beside the other answers; re-exported where the handlers take it). */
export { sseHeaders } from "./responses.ts";
