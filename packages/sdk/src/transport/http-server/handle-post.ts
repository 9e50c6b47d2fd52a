/**
 * POST to the MCP endpoint: one JSON-RPC message (or, in a `2025-03-26` session, a batch array).
 *
 * Notifications and responses only → 202 with no body. Requests → an SSE stream that ends after the last
 * response (or one `application/json` body in JSON response mode). A stream starts with a priming event
 * only in a revision that defines one (2025-11-25), else with a comment line when it outlives its first turn. A request the client cancels gets no
 * response: its stream ends without one (in JSON mode, an SSE body with no events when nothing is left to
 * answer). `initialize` without a session id creates the session and returns `Mcp-Session-Id` (transport
 * spec, "Session Management"). A POST without a session whose `MCP-Protocol-Version` is a stateless
 * revision (2026-07-28) is served on its own (`handle-post-2026-07-28.ts`).
 */
import { classify, type MessageKind } from "../../wire/jsonrpc.ts";
import type { JsonExchange } from "./json-exchange.ts";
import { jsonDepthMessage, jsonTooDeep } from "../../wire/json-depth.ts";
import { type BodyResult, decodeText, declaredRefusal, readBoundedBody, UNREADABLE } from "./body.ts";
import type { MessageExtra } from "../types.ts";
import type { Caller, HandlerContext, HttpRequestConn } from "./context.ts";
import { acceptsJsonAndSse, isJsonContentType } from "./headers.ts";
import { lookupSession, sseHeaders } from "./lookup.ts";
import {
  badRequest,
  jsonRpcHttpError,
  parseErrorResponse,
  jsonHeaders,
  sessionJsonHeaders,
  sessionSseHeaders,
  TRANSPORT_ERROR,
  tooMany,
} from "./responses.ts";
import type { Session } from "./session.ts";
import { handleStatelessPost, isStatelessPost } from "./handle-post-2026-07-28.ts";
import { messageExtra, startSession } from "./post-session.ts";
import { nextTurn } from "./next-turn.ts";
import { bodyRefused, PostAnswer } from "./post-answer.ts";

/**
 * Answer one POST: a refusal that needs no body at once, else the answer's promise, which never rejects (an
 * unexpected failure is answered by `ctx.failed`). A body of a declared length is read by the runtime
 * whole, against the deadline (`post-answer.ts`); a chunked one is counted as it streams (`body.ts`).
 */
export function handlePost(ctx: HandlerContext, req: Request, conn: HttpRequestConn, caller: Caller): Response | Promise<Response> {
  const headers = req.headers;
  if (!acceptsJsonAndSse(headers.get("accept")))
    return jsonRpcHttpError(406, TRANSPORT_ERROR, "Not Acceptable: Accept must list application/json and text/event-stream");
  if (!isJsonContentType(headers.get("content-type")))
    return jsonRpcHttpError(415, TRANSPORT_ERROR, "Unsupported Media Type: Content-Type must be application/json");
  const { maxBodyBytes, requestBodyTimeoutMs } = ctx.config.limits;
  const declared = headers.get("content-length");
  const post = new PostAnswer();
  if (declared === null) void servePost(post, ctx, req, conn, caller, readBoundedBody(req, maxBodyBytes, requestBodyTimeoutMs));
  else {
    const refused = declaredRefusal(declared, maxBodyBytes);
    if (refused) return bodyRefused(refused.status, maxBodyBytes, requestBodyTimeoutMs);
    // The HTTP framing ends the body at its declared length, so the runtime reads it whole, natively (even
    // `req.body` is not touched: in Bun, making the stream costs more than reading).
    const whole = req.arrayBuffer();
    post.deadline(whole, maxBodyBytes, requestBodyTimeoutMs);
    void servePost(post, ctx, req, conn, caller, whole);
  }
  return post.promise;
}

/** Serve one POST once its body is in: every answer, an unexpected failure's too, is given to `post`. */
async function servePost(
  post: PostAnswer,
  ctx: HandlerContext,
  req: Request,
  conn: HttpRequestConn,
  caller: Caller,
  pending: Promise<ArrayBuffer> | Promise<BodyResult>,
): Promise<void> {
  let read: ArrayBuffer | BodyResult;
  try {
    read = await pending;
  } catch {
    read = UNREADABLE;
  }
  // The deadline passed first: its 408 is the answer, and nothing of this body is delivered.
  if (!post.arrived()) return;
  try {
    const { maxBodyBytes, requestBodyTimeoutMs } = ctx.config.limits;
    // The bytes decoded straight to text: no result record for the common case.
    const text = read instanceof ArrayBuffer ? decodeText(read, maxBodyBytes) : read.ok ? read.text : read.status;
    if (typeof text !== "string") return post.settle(bodyRefused(text, maxBodyBytes, requestBodyTimeoutMs));
    // Refused before anything parses or walks it: a deeply nested value stalls every recursive walk after.
    if (jsonTooDeep(text)) return post.settle(badRequest(`Invalid request: ${jsonDepthMessage()}`));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return post.settle(parseErrorResponse("body is not valid JSON"));
    }
    // A lone message is handled as it is, not wrapped in a list of one.
    const isBatch = Array.isArray(value);
    const refused = isBatch ? routeBatch(ctx, caller, value as unknown[], post) : routeMessage(ctx, caller, value, false, post);
    if (refused) return post.settle(refused);
    const { requestIds, initializeId } = post;

    let session: Session;
    const sessionHeader = req.headers.get("mcp-session-id");
    const versionHeader = req.headers.get("mcp-protocol-version");
    if (!isBatch && isStatelessPost(sessionHeader, versionHeader, initializeId))
      return post.settle(await handleStatelessPost(ctx, req, conn, caller, value, versionHeader as string));
    if (initializeId !== undefined && sessionHeader === null) {
      const created = await startSession(ctx, caller);
      if (created instanceof Response) return post.settle(created);
      session = created;
      session.expectInitialize(initializeId, post.requestedRevision);
    } else {
      // The POST is the session's activity, recorded now unless it opens a JSON exchange: the session is then
      // busy until the exchange settles, which records it (`Session.exchangeSettled`), so a JSON request
      // reads the clock once. A refusal below records it all the same.
      const opensExchange = requestIds.length > 0 && ctx.config.responseMode === "json";
      const found = lookupSession(ctx, req, caller, sessionHeader, versionHeader, !opensExchange);
      if (found instanceof Response) return post.settle(found);
      session = found;
      if (isBatch && session.protocolVersion !== "2025-03-26")
        return post.settle(refusedIn(session, badRequest("Invalid request: batches are only allowed in protocol revision 2025-03-26")));
    }

    const { maxInFlightPerSession } = ctx.config.limits;
    for (const id of requestIds)
      if (session.hasPending(id))
        return post.settle(refusedIn(session, badRequest(`Invalid request: request id ${JSON.stringify(id)} is already in flight`, id)));
    if (session.inFlight + requestIds.length > maxInFlightPerSession)
      return post.settle(refusedIn(session, tooMany(`Too Many Requests: at most ${maxInFlightPerSession} requests in flight per session`)));

    const extra = messageExtra(session.id, caller, req.headers, post.classified);
    if (requestIds.length === 0) {
      deliverAll(session, value, isBatch, extra);
      return post.settle(new Response(null, { status: 202, headers: { "mcp-session-id": session.id } }));
    }

    if (ctx.config.responseMode === "json") {
      const exchange = session.openJsonExchange(requestIds);
      deliverAll(session, value, isBatch, extra);
      // A quick handler answers within this turn of the event loop (a synchronous tool before `deliver`
      // returns), yet the answer waits for the turn's end all the same: answering every request of a turn
      // together costs the server less CPU per request under load than answering each at once (fewer
      // wake-ups on both sides; measured, bench/NOTES.md). A slower handler may outlive the client: the
      // exchange is then abandoned if the client goes away (nothing could carry its answer any more). Only
      // then is the request's abort signal made, which costs.
      await nextTurn();
      if (!exchange.settled) {
        exchange.watch(req.signal);
        conn.holdOpen?.();
      }
      if (!exchange.settled) await exchange.result();
      return post.settle(jsonAnswer(session, exchange, isBatch, initializeId !== undefined));
    }

    // Kept alive only if it outlives the turn (below): a quick answer is one string body.
    const writer = ctx.newWriter(false);
    if (session.openPostStream(requestIds, writer) === "limit") {
      writer.end();
      return post.settle(tooMany("Too Many Requests: too many open streams in this session"));
    }
    deliverAll(session, value, isBatch, extra);
    // A quick handler answers within this turn of the event loop: wait for it, so the whole exchange goes
    // out as one string body instead of a stream (much cheaper); slower answers stream as before. An answer
    // already complete waits too: a turn's answers going out together cost less CPU each (see JSON above).
    await nextTurn();
    if (writer.open) {
      // Still open with nothing written (a revision without a priming event): a comment is its first byte.
      if (writer.empty) writer.comment();
      ctx.streaming(writer);
    }
    // The initialize answer builds its headers once; a session's later answers reuse a set (see responses.ts).
    const headers = initializeId === undefined ? sessionSseHeaders(session.id) : sseHeaders(session.id);
    post.settle(new Response(writer.takeBody(req), { headers }));
  } catch (e) {
    post.settle(ctx.failed(e));
  }
}

/** `response`, refusing a POST into `session`: recorded as the session's activity (see `servePost`). */
function refusedIn(session: Session, response: Response): Response {
  session.touch();
  return response;
}

/** Route every message of a batch (see {@link routeMessage}); the answer that refuses the POST, if any. */
function routeBatch(ctx: HandlerContext, caller: Caller, messages: unknown[], post: PostAnswer): Response | undefined {
  if (messages.length === 0) return badRequest("Invalid request: empty batch");
  for (const m of messages) {
    const refused = routeMessage(ctx, caller, m, true, post);
    if (refused) return refused;
  }
  if (post.initializeId !== undefined) return badRequest("Invalid request: initialize must not be part of a batch");
  return undefined;
}

/**
 * Check one message's envelope, to route it (an HTTP reply needs to know what expects an answer), and note
 * on `post` a request and an `initialize`; the answer that refuses the POST, if any.
 */
function routeMessage(ctx: HandlerContext, caller: Caller, m: unknown, inBatch: boolean, post: PostAnswer): Response | undefined {
  const k: MessageKind = classify(m);
  // One message's classification rides to the protocol with it, which then need not classify it again.
  if (!inBatch) post.classified = k;
  if (k.kind === "invalid") return badRequest(`Invalid request: ${k.reason}`, k.id);
  if (k.kind === "batch") return badRequest("Invalid request: nested batch");
  if (k.kind !== "request") return undefined;
  const requestIds = post.requestIds;
  if (requestIds.includes(k.message.id)) return badRequest("Invalid request: duplicate request id in batch");
  requestIds.push(k.message.id);
  if (k.message.method === "initialize") {
    post.initializeId = k.message.id;
    post.requestedRevision = k.message.params?.protocolVersion;
  }
  // What the caller may do is checked here, at the HTTP level, so a client sees 403 + insufficient_scope
  // and can step up (MCP authorization spec, "Scope challenge handling").
  const lacking = ctx.config.authorize?.(caller.authInfo, k.message.method, k.message.params);
  if (lacking) return ctx.forbid(caller.authInfo, lacking);
  return undefined;
}

/** Hand the POST's messages (a batch's in order) to the session's transport. */
function deliverAll(session: Session, value: unknown, isBatch: boolean, extra: MessageExtra): void {
  if (!isBatch) return session.transport.deliver(value, extra);
  for (const m of value as unknown[]) session.transport.deliver(m, extra);
}

/** The JSON-mode answer: the responses collected, as one body (a lone request's answer without a list). */
function jsonAnswer(session: Session, exchange: JsonExchange, isBatch: boolean, isInitialize: boolean): Response {
  // Every request of the POST was cancelled: no JSON-RPC response is due (cancellation spec: SHOULD NOT
  // answer), yet the HTTP request must end. An empty JSON body or 202 would break the transport spec for a
  // request ("MUST return text/event-stream or application/json"), and an error response for an id the
  // client already forgot would surface there as an unknown response; an SSE stream with no events is
  // exactly what SSE mode sends in this case, and every client must accept SSE.
  if (exchange.first === undefined) return new Response("", { headers: sseHeaders(session.id) });
  // The initialize answer builds its headers once; a session's later answers reuse a set (see responses.ts).
  const headers = isInitialize ? jsonHeaders(session.id) : sessionJsonHeaders(session.id);
  return new Response(JSON.stringify(isBatch ? exchange.collected() : exchange.first), { headers });
}
