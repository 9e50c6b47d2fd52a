/**
 * POST of a stateless (2026-07-28) request: no `Mcp-Session-Id`, `MCP-Protocol-Version` naming a revision
 * without `initialize`. Each such POST gets a session of its own for exactly as long as its response
 * stream lives (the request's answer, or a `subscriptions/listen` stream until either side ends it); no
 * session id is minted for the client, none is echoed (transport spec, "Backward Compatibility").
 *
 * Checked here, before any MCP work: the mirrored headers (`MCP-Protocol-Version` against the body's
 * `_meta`, `Mcp-Method`, `Mcp-Name`, and through the `checkHeaders` option the `Mcp-Param-*` of tool
 * parameters: 400 with -32020 on a mismatch), a version we do not serve (400 with
 * -32022 listing ours) and a method the revision lacks (404 with -32601), as the transport spec's "Request
 * Metadata" section asks.
 */
import { isLegacyRevision, isModernRevision, SUPPORTED_REVISIONS } from "../../wire/codec.ts";
import { getCodec } from "../../wire/codecs.ts";
import { unsupportedProtocolVersion } from "../../wire/errors.ts";
import { classify, ErrorCode, errorResponse, type JsonRpcRequest, type RequestId } from "../../wire/jsonrpc.ts";
import type { Caller, HandlerContext } from "./context.ts";
import { badRequest, jsonRpcHttpError, TRANSPORT_ERROR } from "./responses.ts";
import { messageExtra, startSession } from "./post-session.ts";
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
  if (bodyVersion !== version) return `MCP-Protocol-Version header ${JSON.stringify(version)} does not match the body's ${JSON.stringify(bodyVersion ?? null)}`;
  const method = headers.get("mcp-method");
  if (method === null) return "the Mcp-Method header is required";
  if (method !== message.method) return `Mcp-Method header ${JSON.stringify(method)} does not match the body's ${JSON.stringify(message.method)}`;
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
export async function handleModernPost(ctx: HandlerContext, req: Request, caller: Caller, value: unknown, version: string): Promise<Response> {
  const k = classify(value);
  // Only stdio uses client notifications in this revision (closing the stream cancels on HTTP): accepted, unused.
  if (k.kind === "notification") return new Response(null, { status: 202 });
  if (k.kind !== "request") return badRequest("Invalid request: a 2026-07-28 POST carries one JSON-RPC request");
  const message = k.message;
  if (!isModernRevision(version)) {
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
  const writer = ctx.newWriter();
  if (session.openPostStream([message.id], writer) === "limit") {
    writer.end();
    session.close("stream limit");
    return jsonRpcHttpError(429, TRANSPORT_ERROR, "Too Many Requests");
  }
  // The session is this request: it ends with its stream (answered, cancelled by a closed stream, or cut).
  writer.onEnd(() => session.close("stateless request done"));
  session.transport.deliver(message, messageExtra(session.id, caller, req.headers));
  if (writer.open) await nextTurn();
  return new Response(writer.takeBody(req), { headers: SSE_HEADERS });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}


/** Whether a POST is a stateless request: no session, not `initialize`, and a version header that is not a handshake revision's. */
export function isStatelessPost(sessionHeader: string | null, versionHeader: string | null, initializeId: RequestId | undefined): boolean {
  return sessionHeader === null && initializeId === undefined && versionHeader !== null && !isLegacyRevision(versionHeader);
}
