/**
 * HTTP error answers of the transport. The body is a JSON-RPC error response addressed to id null, which the
 * transport spec allows ("The HTTP response body MAY comprise a JSON-RPC error response that has no id").
 */
import { ErrorCode, errorResponse, type RequestId } from "../../wire/jsonrpc.ts";

/** JSON-RPC code for transport-level refusals (implementation-defined server error range). */
export const TRANSPORT_ERROR = -32000;

/** An HTTP error carrying a JSON-RPC error body. */
export function jsonRpcHttpError(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
  id: RequestId | null = null,
): Response {
  return new Response(JSON.stringify(errorResponse(id, code, message)), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** 400 with a JSON-RPC -32600 body: the request is malformed at the transport level. */
export const badRequest = (message: string, id: RequestId | null = null) =>
  jsonRpcHttpError(400, ErrorCode.InvalidRequest, message, undefined, id);

/** 400 with a JSON-RPC -32700 body: the POST body was not JSON. */
export const parseErrorResponse = (detail: string) => jsonRpcHttpError(400, ErrorCode.ParseError, `Parse error: ${detail}`);

/** 404: the session does not exist, has ended, or belongs to another principal (indistinguishable on purpose). */
export const sessionNotFound = () => jsonRpcHttpError(404, TRANSPORT_ERROR, "Session not found");

/** 405 for methods the endpoint does not offer. */
export const methodNotAllowed = (allow: string) => jsonRpcHttpError(405, TRANSPORT_ERROR, "Method not allowed", { allow });

/** 429: a per-session limit; the client may retry once its other requests finish. */
export const tooMany = (message: string) => jsonRpcHttpError(429, TRANSPORT_ERROR, message, { "retry-after": "1" });

/** 403: Origin or Host refused. */
export const forbidden = (message: string) => jsonRpcHttpError(403, TRANSPORT_ERROR, message);

/**
 * Memo of response header sets by session id, for the answers a session gets at every request. Bun copies
 * a `Headers` into each `Response`, which costs a fraction of building one from a plain object (~1 against
 * ~4 µs a response), so one set per busy session is reused. Bounded: past {@link HEADER_SETS} ids the memo
 * starts over (more sessions than that still work, rebuilding their sets), and nothing is stored per idle
 * session.
 */
class HeaderSets {
  private readonly sets = new Map<string, Headers>();
  constructor(private readonly build: (sessionId: string) => Record<string, string>) {}
  for(sessionId: string): Headers {
    let h = this.sets.get(sessionId);
    if (h === undefined) {
      if (this.sets.size >= HEADER_SETS) this.sets.clear();
      this.sets.set(sessionId, (h = new Headers(this.build(sessionId))));
    }
    return h;
  }
}

/** How many sessions' header sets are kept at once. */
const HEADER_SETS = 512;

/** Headers of an SSE response. */
export const sseHeaders = (sessionId: string): Record<string, string> => ({
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  "mcp-session-id": sessionId,
});

const sseSets = new HeaderSets(sseHeaders);
/** {@link sseHeaders} of a session's requests after `initialize`, reused (see {@link HeaderSets}). */
export const sessionSseHeaders = (sessionId: string): Headers => sseSets.for(sessionId);

/** The content type `Response.json` sets, which a JSON answer keeps. */
const JSON_CONTENT_TYPE = "application/json;charset=utf-8";

/** Headers of a JSON answer: its content type and the session id. */
export const jsonHeaders = (sessionId: string): Record<string, string> => ({
  "content-type": JSON_CONTENT_TYPE,
  "mcp-session-id": sessionId,
});

const jsonSets = new HeaderSets(jsonHeaders);
/**
 * {@link jsonHeaders} of a session's requests after `initialize`, reused (see {@link HeaderSets}). The
 * answer is a `Response` of the serialised text with these headers, which Bun handles for less CPU than
 * `Response.json` adding its content type to a header set (measured, bench/NOTES.md), with the same bytes.
 */
export const sessionJsonHeaders = (sessionId: string): Headers => jsonSets.for(sessionId);
