/**
 * POST of a stateless (2026-07-28) request: no `Mcp-Session-Id`, `MCP-Protocol-Version` naming a revision
 * without `initialize`. Each such POST gets a session of its own for exactly as long as its response
 * stream lives (the request's answer, or a `subscriptions/listen` stream until either side ends it); no
 * session id is minted for the client, none is echoed (transport spec, "Backward Compatibility").
 *
 * The answer is one `application/json` body when nothing else is sent before it (always with
 * `--json-response`), else an SSE stream: no priming event and no event ids, as that revision has no
 * resumption (transport spec, "Receiving Messages").
 *
 * Checked here, before any MCP work: the mirrored headers (`MCP-Protocol-Version` against the body's
 * `_meta`, `Mcp-Method`, `Mcp-Name`, and through the `checkHeaders` option the `Mcp-Param-*` of tool
 * parameters: 400 with -32020 on a mismatch), a version we do not serve (400 with
 * -32022 listing ours) and a method the revision lacks (404 with -32601), as the transport spec's "Request
 * Metadata" section asks.
 */
import { isHandshakeRevision, isStatelessRevision, SUPPORTED_REVISIONS } from "../../wire/codec.ts";
import { getCodec } from "../../wire/codecs.ts";
import { unsupportedProtocolVersion } from "../../wire/errors.ts";
import { classify, ErrorCode, errorResponse, type JsonRpcRequest, type RequestId } from "../../wire/jsonrpc.ts";
import type { Caller, HandlerContext, HttpRequestConn } from "./context.ts";
import type { Session } from "./session.ts";
import { badRequest, jsonRpcHttpError, TRANSPORT_ERROR } from "./responses.ts";
import { messageExtra, startSession } from "./post-session.ts";
import type { MessageExtra } from "../types.ts";
import { decodeHeaderValue } from "../../wire/param-headers.ts";
import { nextTurn } from "./next-turn.ts";

/** Requests whose `Mcp-Name` header mirrors `params.name`, `params.uri` or (tasks extension) `params.taskId`. */
const NAMED: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

export { decodeHeaderValue };

/** What is wrong with the mirrored headers of `message`, or undefined. */
export function headerMismatch(headers: Headers, message: JsonRpcRequest, version: string): string | undefined {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const bodyVersion = meta?.["io.modelcontextprotocol/protocolVersion"];
  if (bodyVersion !== version)
    return `MCP-Protocol-Version header ${JSON.stringify(version)} does not match the body's ${JSON.stringify(bodyVersion ?? null)}`;
  const method = headers.get("mcp-method");
  if (method === null) return "the Mcp-Method header is required";
  if (method !== message.method)
    return `Mcp-Method header ${JSON.stringify(method)} does not match the body's ${JSON.stringify(message.method)}`;
  const field = NAMED[message.method];
  if (field === undefined) return undefined;
  const name = headers.get("mcp-name");
  if (name === null) return "the Mcp-Name header is required";
  const body = message.params?.[field];
  if (decodeHeaderValue(name) !== body) return `Mcp-Name header does not match the body's params.${field}`;
  return undefined;
}

/** SSE response headers of a stateless request (no session id). */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** Answer one stateless POST whose `MCP-Protocol-Version` header is `version`. */
export async function handleStatelessPost(
  ctx: HandlerContext,
  req: Request,
  conn: HttpRequestConn,
  caller: Caller,
  value: unknown,
  version: string,
): Promise<Response> {
  const k = classify(value);
  // Only stdio uses client notifications in this revision (closing the stream cancels on HTTP): accepted, unused.
  if (k.kind === "notification") return new Response(null, { status: 202 });
  if (k.kind !== "request") return badRequest("Invalid request: a 2026-07-28 POST carries one JSON-RPC request");
  const message = k.message;
  if (!isStatelessRevision(version)) {
    const e = unsupportedProtocolVersion(version.slice(0, 40), SUPPORTED_REVISIONS);
    return json(400, errorResponse(message.id, e.code, e.message, e.data));
  }
  const mismatch = headerMismatch(req.headers, message, version) ?? ctx.config.checkHeaders?.(message, req.headers);
  if (mismatch !== undefined) return jsonRpcHttpError(400, ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`, undefined, message.id);
  if (!getCodec(version).knowsRequest(message.method))
    return jsonRpcHttpError(404, ErrorCode.MethodNotFound, `Method not found: ${message.method}`, undefined, message.id);

  const session = await startSession(ctx, caller, message.id);
  if (session instanceof Response) return session;
  session.stateless = true;
  const extra = messageExtra(session.id, caller, req.headers);
  // A listen stream has no response to wait for: it streams in either mode.
  if (ctx.config.responseMode === "json" && message.method !== "subscriptions/listen")
    return answerAsJson(session, message, extra, req, conn);

  const writer = ctx.newWriter();
  if (session.openPostStream([message.id], writer) === "limit") {
    writer.end();
    session.close("stream limit");
    return jsonRpcHttpError(429, TRANSPORT_ERROR, "Too Many Requests");
  }
  // The session is this request: it ends with its stream (answered, cancelled by a closed stream, or cut).
  writer.onEnd(() => session.close("stateless request done"));
  session.transport.deliver(message, extra);
  // Even an answer already complete waits for the turn's end: a turn's answers going out together cost the
  // server less CPU each under load (see handle-post.ts).
  await nextTurn();
  // Nothing yet: the response is held (Bun sends no headers before the first body byte) until the first
  // write, which decides: the answer alone is one JSON body; a notification first (progress, a log
  // message, a listen stream's acknowledgement) or the server's keep-alive starts the SSE stream. The
  // client leaving meanwhile cancels the request, as closing its stream would.
  if (writer.open && writer.empty) {
    conn.holdOpen?.();
    const leave = () => writer.disconnected();
    req.signal.addEventListener("abort", leave, { once: true });
    await writer.written();
    req.signal.removeEventListener("abort", leave);
  }
  const sole = writer.open ? undefined : writer.soleData;
  if (sole !== undefined) return new Response(sole, { headers: JSON_HEADERS });
  return new Response(writer.takeBody(req), { headers: SSE_HEADERS });
}

/**
 * `--json-response`: the response alone, as one JSON body. Notifications the request causes have no
 * stream to go on and are dropped (what a JSON answer means in every revision).
 */
async function answerAsJson(
  session: Session,
  message: JsonRpcRequest,
  extra: MessageExtra,
  req: Request,
  conn: HttpRequestConn,
): Promise<Response> {
  const exchange = session.openJsonExchange([message.id]);
  session.transport.deliver(message, extra);
  await nextTurn();
  if (!exchange.settled) {
    exchange.watch(req.signal);
    conn.holdOpen?.();
  }
  await exchange.result();
  session.close("stateless request done");
  // The client went away before the answer: nobody reads this.
  if (exchange.first === undefined) return new Response("", { headers: SSE_HEADERS });
  return new Response(JSON.stringify(exchange.first), { headers: JSON_HEADERS });
}

const JSON_HEADERS: Readonly<Record<string, string>> = { "content-type": "application/json" };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** Whether a POST is a stateless request: no session, not `initialize`, and a version header that is not a handshake revision's. */
export function isStatelessPost(sessionHeader: string | null, versionHeader: string | null, initializeId: RequestId | undefined): boolean {
  return sessionHeader === null && initializeId === undefined && versionHeader !== null && !isHandshakeRevision(versionHeader);
}
