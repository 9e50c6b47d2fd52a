/**
 * The JSON-RPC binding at `/a2a`, in steps: read the bounded body, check it is one JSON-RPC request, pick
 * the version and method it names, then answer it — a single result, or an SSE stream for the streaming
 * methods. A v0.3 method name (with a 0.3 or absent header) goes through the v0.3 codec in `v03/`.
 */
import { A2aError, type StreamResponse } from "../shared/types.ts";
import { readBoundedBody } from "../../transport/http-server/body.ts";
import { jsonDepthMessage, jsonTooDeep } from "../../wire/json-depth.ts";
import { eventToV03 } from "../shared/v03-shapes.ts";
import { type A2aBindingContext, type A2aCaller, gatedService } from "./binding-context.ts";
import { OPERATOR_METHODS } from "./operator.ts";
import { callV03, isV03Method, v03Stream, v03Streams } from "./v03/methods.ts";
import { bodyError, refusedBody } from "./v03/rest.ts";
import { wireVersion } from "./wire-version.ts";

type RpcId = string | number | null;
type Params = Record<string, unknown>;

/** One JSON-RPC request, checked. */
interface RpcRequest {
  id: RpcId;
  method: string;
  params: Params;
}

const V1_METHODS = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "GetExtendedAgentCard",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
]);

/** Serve a request to the JSON-RPC endpoint. */
export async function serveJsonRpc(ctx: A2aBindingContext, req: Request, caller: A2aCaller): Promise<Response> {
  if (req.method !== "POST") return new Response("Method Not Allowed", { status: 405, headers: { allow: "POST" } });
  const read = await readBoundedBody(req, ctx.maxBodyBytes, ctx.bodyTimeoutMs);
  if (!read.ok) return refusedBody(rpcError(null, bodyError(read.status, ctx.maxBodyBytes, ctx.bodyTimeoutMs), read.status), read.status);
  const rpc = parseRpcRequest(read.text);
  if (rpc instanceof Response) return rpc;
  const version = wireVersion(req);
  if (version instanceof A2aError) return rpcError(rpc.id, version);
  if (version.version === "0.3" && isV03Method(rpc.method)) return answerV03(ctx, rpc, caller);
  if (version.version === "0.3" && !version.implicit && !OPERATOR_METHODS.has(rpc.method))
    return rpcError(rpc.id, new A2aError("MethodNotFound", `Method not found in A2A 0.3: ${rpc.method.slice(0, 60)}`));
  if (!V1_METHODS.has(rpc.method) && !OPERATOR_METHODS.has(rpc.method))
    return rpcError(rpc.id, new A2aError("MethodNotFound", `Method not found: ${rpc.method.slice(0, 60)}`));
  const refused = caller.lacks(rpc.method);
  if (refused) return refused;
  return answerV1(ctx, rpc, caller);
}

/** The body as one JSON-RPC 2.0 request, or the error answer that says what is wrong with it. */
function parseRpcRequest(text: string): RpcRequest | Response {
  // Refused before anything parses or walks it: a deeply nested value stalls every recursive walk after.
  if (jsonTooDeep(text)) return rpcError(null, new A2aError("InvalidRequest", `Invalid Request: ${jsonDepthMessage()}`), 400);
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return rpcError(null, new A2aError("ParseError", "Parse error: the body is not JSON"));
  }
  if (typeof msg !== "object" || msg === null || Array.isArray(msg))
    return rpcError(
      null,
      new A2aError("InvalidRequest", "Invalid Request: a JSON-RPC 2.0 request object is expected (batches are not supported)"),
    );
  const r = msg as Record<string, unknown>;
  const id = typeof r.id === "string" || typeof r.id === "number" ? r.id : null;
  if (r.jsonrpc !== "2.0" || typeof r.method !== "string" || (r.id !== undefined && id === null))
    return rpcError(id, new A2aError("InvalidRequest", 'Invalid Request: jsonrpc must be "2.0", method a string, id a string or number'));
  if (r.params !== undefined && (typeof r.params !== "object" || r.params === null || Array.isArray(r.params)))
    return rpcError(id, new A2aError("InvalidParams", "params must be an object"));
  return { id, method: r.method, params: (r.params ?? {}) as Params };
}

/** A v1.0 method, permitted: its result, or its events as SSE. */
async function answerV1(ctx: A2aBindingContext, { id, method, params }: RpcRequest, { who, conn }: A2aCaller): Promise<Response> {
  try {
    if (ctx.service.streams(method))
      return ctx.sse(
        who,
        () => ctx.service.stream(method, params, who),
        (e: StreamResponse) => ({ jsonrpc: "2.0", id, result: e }),
        (e) => ({ jsonrpc: "2.0", id, error: ctx.toA2aError(e).toJsonRpc() }),
        (e) => rpcError(id, e, 429),
      );
    // A blocking SendMessage sends nothing until the run ends: the connection's idle timer must not cut it.
    conn.holdOpen?.();
    const result = await ctx.service.call(method, params, who);
    return Response.json({ jsonrpc: "2.0", id, result });
  } catch (e) {
    return rpcError(id, ctx.toA2aError(e));
  }
}

/** A v0.3 JSON-RPC request: the v1.0 operation it maps to, with its params and answer translated. */
async function answerV03(ctx: A2aBindingContext, { id, method, params }: RpcRequest, { who, conn, lacks }: A2aCaller): Promise<Response> {
  const service = gatedService(ctx.service, lacks);
  try {
    if (v03Streams(method)) {
      const call = v03Stream(method, params);
      return ctx.sse(
        who,
        () => service.stream(call.method, call.params, who),
        (e) => ({ jsonrpc: "2.0", id, result: eventToV03(e) }),
        (e) => ({ jsonrpc: "2.0", id, error: ctx.toA2aError(e).toJsonRpc() }),
        (e) => rpcError(id, e, 429),
      );
    }
    conn.holdOpen?.();
    return Response.json({ jsonrpc: "2.0", id, result: await callV03(service, method, params, who) });
  } catch (e) {
    if (e instanceof Response) return e;
    return rpcError(id, ctx.toA2aError(e));
  }
}

/** A JSON-RPC error answer. */
function rpcError(id: RpcId, e: A2aError, status = 200): Response {
  return Response.json({ jsonrpc: "2.0", id, error: e.toJsonRpc() }, { status });
}
