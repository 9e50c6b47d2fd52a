/**
 * The v0.3 HTTP+JSON binding, under the REST base at `/v1/…` (as the reference SDKs speak it; `GET /v1/card` the extended card): each path
 * is the v1.0 operation of the same name, its body and answer in the v0.3 proto's JSON
 * ({@link ./proto-json.ts}), errors as v0.3's bare `{ code, message }` with the HTTP status of the kind.
 */
import { A2aError, A2A_ERRORS, type AgentCard, type StreamResponse, type Task } from "../../shared/types.ts";
import { BODY_TIMEOUT_HEADERS, readBoundedBody } from "../../../transport/http-server/body.ts";
import { jsonDepthMessage, jsonTooDeep } from "../../../wire/json-depth.ts";
import type { HttpRequestConn } from "../../../transport/http-server/context.ts";
import type { Principal } from "../../../serve/principal.ts";
import { PUSH_RENDER, type PushConfig } from "../push.ts";
import type { A2aService } from "../service.ts";
import type { CountedSse } from "../sse.ts";
import { cardToProto, messageFromProto, pushConfigToProto, streamToProto, taskToProto } from "./proto-json.ts";
import { eventToV03, pushConfigFromV03 } from "../../shared/v03-shapes.ts";

type Params = Record<string, unknown>;
const isObject = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v);

const HTTP_STATUS: Partial<Record<A2aError["kind"], number>> = {
  TaskNotFound: 404,
  MethodNotFound: 404,
  TaskNotCancelable: 409,
  ContentTypeNotSupported: 415,
  Internal: 500,
};

/** A v0.3 error body with its HTTP status. */
export function v03RestError(e: A2aError, status?: number): Response {
  return Response.json({ code: A2A_ERRORS[e.kind].code, message: e.message }, { status: status ?? HTTP_STATUS[e.kind] ?? 400 });
}

/** v0.3's `SendMessageRequest` (proto JSON) as v1.0's. */
function sendParams(body: Params): Params {
  const c = isObject(body.configuration) ? body.configuration : {};
  const push = isObject(c.pushNotification) ? { ...pushConfigFromV03(c.pushNotification), [PUSH_RENDER]: eventToV03 } : undefined;
  return {
    message: messageFromProto(body.message ?? body.request),
    configuration: {
      // proto3 JSON omits a false boolean: a send without `blocking` is non-blocking, as the 0.3 reference
      // server reads it (and its client leaves the field out for a non-blocking send).
      returnImmediately: c.blocking !== true,
      // proto3 JSON: 0 is the field's default, i.e. not set.
      historyLength: typeof c.historyLength === "number" && c.historyLength > 0 ? c.historyLength : undefined,
      taskPushNotificationConfig: push,
    },
  };
}

type Route = { unary?: (call: (m: string, p: Params) => Promise<unknown>) => Promise<unknown>; stream?: [string, Params] };

function route(verb: string, sub: string, body: Params, query: URLSearchParams): Route | undefined {
  if (verb === "POST" && sub === "/message:send")
    return { unary: async (call) => streamToProto((await call("SendMessage", sendParams(body))) as StreamResponse) };
  if (verb === "POST" && sub === "/message:stream") return { stream: ["SendStreamingMessage", sendParams(body)] };
  if (verb === "GET" && sub === "/card")
    return { unary: async (call) => cardToProto((await call("GetExtendedAgentCard", {})) as AgentCard) };
  const m = /^\/tasks\/([^/:]+)(:cancel|:subscribe|\/pushNotificationConfigs(?:\/([^/]+))?)?$/.exec(sub);
  if (!m) return undefined;
  const id = decodeURIComponent(m[1]!);
  if (!m[2] && verb === "GET") {
    const h = query.get("historyLength");
    return { unary: async (call) => taskToProto((await call("GetTask", { id, historyLength: h ?? undefined })) as Task) };
  }
  if (m[2] === ":cancel" && verb === "POST") return { unary: async (call) => taskToProto((await call("CancelTask", { id })) as Task) };
  if (m[2] === ":subscribe" && (verb === "GET" || verb === "POST")) return { stream: ["SubscribeToTask", { id }] };
  if (!m[2]?.startsWith("/push")) return undefined;
  const configId = m[3] ? decodeURIComponent(m[3]) : undefined;
  const one = (c: unknown) => pushConfigToProto(c as PushConfig);
  if (!configId && verb === "POST") {
    const fields = { ...pushConfigFromV03(body.pushNotificationConfig), [PUSH_RENDER]: eventToV03 };
    return { unary: async (call) => one(await call("CreateTaskPushNotificationConfig", { taskId: id, ...fields })) };
  }
  if (!configId && verb === "GET")
    return {
      unary: async (call) => ({
        configs: ((await call("ListTaskPushNotificationConfigs", { taskId: id })) as { configs: PushConfig[] }).configs.map(one),
      }),
    };
  if (configId && verb === "GET")
    return { unary: async (call) => one(await call("GetTaskPushNotificationConfig", { taskId: id, id: configId })) };
  if (configId && verb === "DELETE")
    return { unary: async (call) => (await call("DeleteTaskPushNotificationConfig", { taskId: id, id: configId }), {}) };
  return undefined;
}

/** The A2A error for a request body that was refused (too large, too slow, not UTF-8). */
export function bodyError(status: 400 | 408 | 413, maxBodyBytes: number, bodyTimeoutMs: number): A2aError {
  if (status === 413) return new A2aError("InvalidRequest", `request body exceeds ${maxBodyBytes} bytes`);
  if (status === 408) return new A2aError("InvalidRequest", `Request Timeout: the body did not arrive within ${bodyTimeoutMs} ms`);
  return new A2aError("ParseError", "body is not UTF-8");
}

/** `res` for a refused body; a 408 closes the connection (its unread body with it). */
export function refusedBody(res: Response, status: number): Response {
  if (status === 408) for (const [k, v] of Object.entries(BODY_TIMEOUT_HEADERS)) res.headers.set(k, v);
  return res;
}

/** Serve a v0.3 HTTP+JSON request; `sub` is the path after `/v1`. */
export async function serveV03Rest(
  o: { service: A2aService; maxBodyBytes: number; bodyTimeoutMs: number; toA2aError: (e: unknown) => A2aError; sse: CountedSse },
  req: Request,
  sub: string,
  who: Principal,
  conn: HttpRequestConn,
): Promise<Response> {
  let body: Params = {};
  if (req.method === "POST") {
    const read = await readBoundedBody(req, o.maxBodyBytes, o.bodyTimeoutMs);
    if (!read.ok) return refusedBody(v03RestError(bodyError(read.status, o.maxBodyBytes, o.bodyTimeoutMs), read.status), read.status);
    if (jsonTooDeep(read.text)) return v03RestError(new A2aError("InvalidRequest", jsonDepthMessage()));
    try {
      const parsed: unknown = read.text ? JSON.parse(read.text) : {};
      if (!isObject(parsed)) throw new Error("not an object");
      body = parsed;
    } catch {
      return v03RestError(new A2aError("ParseError", "the body is not a JSON object"));
    }
  }
  try {
    const r = route(req.method, sub, body, new URL(req.url).searchParams);
    if (!r) return v03RestError(new A2aError("MethodNotFound", `no ${req.method} /v1${sub} in the v0.3 HTTP+JSON binding`));
    if (r.stream) {
      const [method, params] = r.stream;
      return o.sse(
        who,
        () => o.service.stream(method, params, who),
        streamToProto,
        (e) => {
          const err = o.toA2aError(e);
          return { code: A2A_ERRORS[err.kind].code, message: err.message };
        },
        (e) => v03RestError(e, 429),
      );
    }
    conn.holdOpen?.();
    return Response.json(await r.unary!((m, p) => o.service.call(m, p, who)));
  } catch (e) {
    // A permission refusal (the mount's gated service) is already the answer.
    if (e instanceof Response) return e;
    return v03RestError(o.toA2aError(e));
  }
}
