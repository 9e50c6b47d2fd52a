/**
 * GET and DELETE on the MCP endpoint.
 *
 * GET opens the session's standalone SSE stream for server-initiated messages (one connected at a time:
 * 409 for a second), or, with `Last-Event-ID`, resumes the stream that id belongs to: its stored events after
 * that id are replayed, then live events continue if the stream is still open (transport spec,
 * "Resumability and Redelivery"). A resumption of a stream that has ended, with nothing left to replay after
 * that id, gets 204 No Content: the SSE standard's way to tell a client to stop reconnecting (WHATWG HTML,
 * "Server-sent events": clients stop on 204), which is what stops the official SDK client; a 200 stream that
 * ends at once would be polled again at every `retry` interval, for as long as the session lives. DELETE
 * ends the session; its id then answers 404.
 */
import type { Caller, HandlerContext } from "./context.ts";
import { parseEventId } from "./event-store.ts";
import { acceptsMedia } from "./headers.ts";
import { lookupSession, sseHeaders } from "./lookup.ts";
import { badRequest, jsonRpcHttpError, TRANSPORT_ERROR, tooMany } from "./responses.ts";

/** Answer one GET. */
export function handleGet(ctx: HandlerContext, req: Request, caller: Caller): Response {
  if (!acceptsMedia(req.headers.get("accept"), "text/event-stream"))
    return jsonRpcHttpError(406, TRANSPORT_ERROR, "Not Acceptable: Accept must list text/event-stream");
  const session = lookupSession(ctx, req, caller);
  if (session instanceof Response) return session;

  const lastEventId = req.headers.get("last-event-id");
  const cursor = lastEventId === null ? null : parseEventId(lastEventId);
  if (lastEventId !== null && cursor === null) return badRequest("Bad Request: Last-Event-ID is not an event id of this server");

  const writer = ctx.newWriter();
  const outcome = cursor ? session.resume(cursor.stream, cursor.seq, lastEventId!, writer) : session.openStandalone(writer);
  if (outcome !== "ok") {
    writer.end();
    if (outcome === "over") return new Response(null, { status: 204, headers: { "mcp-session-id": session.id } });
    if (outcome === "limit") return tooMany("Too Many Requests: too many open streams in this session");
    if (outcome === "conflict") return jsonRpcHttpError(409, TRANSPORT_ERROR, "Conflict: this session already has a standalone SSE stream");
    return badRequest("Bad Request: Last-Event-ID names no stream of this session");
  }
  // Taken at once, without the request's signal (which would cost every idle GET stream ~1 kB).
  return new Response(writer.takeBody(), { headers: sseHeaders(session.id) });
}

/** Answer one DELETE: end the session. */
export function handleDelete(ctx: HandlerContext, req: Request, caller: Caller): Response {
  const session = lookupSession(ctx, req, caller);
  if (session instanceof Response) return session;
  session.close("deleted by client");
  return new Response(null, { status: 204 });
}
