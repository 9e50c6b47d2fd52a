/**
 * The v1.0 HTTP+JSON binding under `/a2a/rest`, in steps: check the version, route the path to its
 * operation, check the permission, gather the params (query, path, bounded JSON body), then answer — a
 * single result or an SSE stream. Errors are `google.rpc.Status` bodies with the spec's HTTP status.
 */
import { A2aError, A2A_ERRORS, ERROR_INFO_TYPE } from "../shared/types.ts";
import { readBoundedBody } from "../../transport/http-server/body.ts";
import { jsonDepthMessage, jsonTooDeep } from "../../wire/json-depth.ts";
import type { A2aBindingContext, A2aCaller } from "./binding-context.ts";
import { bodyError, refusedBody } from "./v03/rest.ts";
import { versionError } from "./wire-version.ts";

type Params = Record<string, unknown>;

/** An HTTP+JSON path resolved to the operation it names and the params its path carries. */
interface RestRoute {
  method: string;
  params: Record<string, string>;
}

/** HTTP status of each A2A error on the HTTP+JSON binding (spec §11.6), and its google.rpc code name. */
const REST_STATUS: Record<string, [number, string]> = {
  TaskNotFound: [404, "NOT_FOUND"],
  TaskNotCancelable: [409, "FAILED_PRECONDITION"],
  PushNotificationNotSupported: [400, "UNIMPLEMENTED"],
  UnsupportedOperation: [400, "UNIMPLEMENTED"],
  ContentTypeNotSupported: [415, "INVALID_ARGUMENT"],
  VersionNotSupported: [400, "UNIMPLEMENTED"],
  PermissionDenied: [403, "PERMISSION_DENIED"],
  MethodNotFound: [404, "NOT_FOUND"],
  ParseError: [400, "INVALID_ARGUMENT"],
  InvalidRequest: [400, "INVALID_ARGUMENT"],
  InvalidParams: [400, "INVALID_ARGUMENT"],
  Internal: [500, "INTERNAL"],
};

/** Serve a v1.0 HTTP+JSON request; `sub` is the path after `/a2a/rest`. */
export async function serveRest(ctx: A2aBindingContext, req: Request, sub: string, caller: A2aCaller): Promise<Response> {
  const version = versionError(req);
  if (version) return restError(version);
  const route = restRoute(req.method, sub);
  if (!route) return restError(new A2aError("MethodNotFound", `no ${req.method} ${sub} in the HTTP+JSON binding`));
  const refused = caller.lacks(route.method);
  if (refused) return refused;
  const params = await restParams(ctx, req, route);
  if (params instanceof Response) return params;
  return answer(ctx, route.method, params, caller);
}

/** The operation's params: the query, the body of a POST (bounded, one JSON object), and the path's. */
async function restParams(ctx: A2aBindingContext, req: Request, route: RestRoute): Promise<Params | Response> {
  const query = Object.fromEntries(new URL(req.url).searchParams);
  let params: Params = { ...query, ...route.params };
  if (req.method === "POST") {
    const read = await readBoundedBody(req, ctx.maxBodyBytes, ctx.bodyTimeoutMs);
    if (!read.ok) return refusedBody(restError(bodyError(read.status, ctx.maxBodyBytes, ctx.bodyTimeoutMs), read.status), read.status);
    if (jsonTooDeep(read.text)) return restError(new A2aError("InvalidRequest", jsonDepthMessage()));
    try {
      const body = read.text ? JSON.parse(read.text) : {};
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
      params = { ...body, ...route.params };
    } catch {
      return restError(new A2aError("ParseError", "the body is not a JSON object"));
    }
  }
  if (query.includeArtifacts !== undefined) params.includeArtifacts = query.includeArtifacts === "true";
  return params;
}

/** A permitted operation: its result as JSON, or its events as SSE. */
async function answer(ctx: A2aBindingContext, method: string, params: Params, { who, conn }: A2aCaller): Promise<Response> {
  try {
    if (ctx.service.streams(method))
      return ctx.sse(
        who,
        () => ctx.service.stream(method, params, who),
        (e) => e,
        (e) => restBody(ctx.toA2aError(e)),
        (e) => {
          const body = restBody(e);
          return Response.json({ error: { ...body.error, code: 429, status: "RESOURCE_EXHAUSTED" } }, { status: 429 });
        },
      );
    conn.holdOpen?.();
    const result = await ctx.service.call(method, params, who);
    // SendMessage answers a SendMessageResponse; the others their message type.
    return Response.json(result);
  } catch (e) {
    return restError(ctx.toA2aError(e));
  }
}

/** The HTTP+JSON routes of the proto's `google.api.http` bindings (without tenants). */
function restRoute(method: string, sub: string): RestRoute | undefined {
  if (method === "POST" && sub === "/message:send") return { method: "SendMessage", params: {} };
  if (method === "POST" && sub === "/message:stream") return { method: "SendStreamingMessage", params: {} };
  if (method === "GET" && sub === "/tasks") return { method: "ListTasks", params: {} };
  const m = /^\/tasks\/([^/:]+)(:cancel|:subscribe|\/pushNotificationConfigs(?:\/([^/]+))?)?$/.exec(sub);
  if (!m) return undefined;
  const id = decodeURIComponent(m[1]!);
  if (!m[2]) return method === "GET" ? { method: "GetTask", params: { id } } : undefined;
  if (m[2] === ":cancel") return method === "POST" ? { method: "CancelTask", params: { id } } : undefined;
  // The proto binds subscribe to GET; clients (the reference SDK among them) POST it: both are served.
  if (m[2] === ":subscribe") return method === "GET" || method === "POST" ? { method: "SubscribeToTask", params: { id } } : undefined;
  const push = { taskId: id, ...(m[3] ? { id: decodeURIComponent(m[3]) } : {}) };
  if (!m[3])
    return method === "POST"
      ? { method: "CreateTaskPushNotificationConfig", params: push }
      : method === "GET"
        ? { method: "ListTaskPushNotificationConfigs", params: push }
        : undefined;
  return method === "GET"
    ? { method: "GetTaskPushNotificationConfig", params: push }
    : method === "DELETE"
      ? { method: "DeleteTaskPushNotificationConfig", params: push }
      : undefined;
}

/** An A2A error as a `google.rpc.Status` body carrying its `ErrorInfo`. */
function restBody(e: A2aError): { error: { code: number; status: string; message: string; details: unknown[] } } {
  const [code, status] = REST_STATUS[e.kind] ?? [500, "INTERNAL"];
  return {
    error: {
      code,
      status,
      message: e.message,
      details: [{ "@type": ERROR_INFO_TYPE, reason: A2A_ERRORS[e.kind].reason, domain: "a2a-protocol.org" }],
    },
  };
}

/** An A2A error as an HTTP+JSON answer (the kind's status unless `status` says otherwise). */
function restError(e: A2aError, status?: number): Response {
  const body = restBody(e);
  return Response.json(body, { status: status ?? body.error.code });
}
