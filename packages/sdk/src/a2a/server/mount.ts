/**
 * A2A over HTTP on the agent's listener, beside the MCP endpoint: the agent card at
 * `/.well-known/agent-card.json` (public, with ETag and Cache-Control), the JSON-RPC binding at `/a2a`
 * and the HTTP+JSON binding under `/a2a/rest` (v0.3's at `/a2a/rest/v1/…`). Both bindings are authenticated like the MCP endpoint
 * (the listener checks Host, Origin and credentials before a request gets here) and bounded in size.
 *
 * Versions: `A2A-Version: 1.x` is served in v1.0 shapes; a request without the header (or with 0.3) is
 * v0.3, as the spec says, and answered in v0.3 shapes by the codec in `v03/` — except a v1.0 method name
 * without the header, which can only mean 1.0. Any other version is refused with VersionNotSupported.
 */
import { createHash } from "node:crypto";
import { A2aError, A2A_ERRORS, ERROR_INFO_TYPE, type AgentCard, type StreamResponse } from "../shared/types.ts";
import type { Logger } from "../../log.ts";
import { readBoundedBody } from "../../transport/http-server/body.ts";
import { jsonDepthMessage, jsonTooDeep } from "../../wire/json-depth.ts";
import type { HttpMount } from "../../transport/http-server/index.ts";
import type { Caller, HttpRequestConn } from "../../transport/http-server/context.ts";
import { traceCarrierFromMeta } from "../../loop/trace-context.ts";
import { can, resolvePrincipal, type Principal } from "../../serve/principal.ts";
import { a2aPermission } from "../../serve/permissions.ts";

/** The 403 for a method the caller may not call, or undefined. */
type Refusal = (method: string) => Response | undefined;
import { OPERATOR_METHODS } from "./operator.ts";
import type { A2aService } from "./service.ts";
import { type CountedSse, sseResponse } from "./sse.ts";
import { cardToV03, isV03Version } from "./v03/card.ts";
import { callV03, isV03Method, v03Stream, v03Streams } from "./v03/methods.ts";
import { bodyError, refusedBody, serveV03Rest, v03RestError } from "./v03/rest.ts";
import { eventToV03 } from "../shared/v03-shapes.ts";

/** The well-known path of the agent card. */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
/** The JSON-RPC endpoint path; the HTTP+JSON binding lives under `${A2A_PATH}/rest`. */
export const A2A_PATH = "/a2a";

/** What the mount needs. */
export interface A2aMountOptions {
  service: A2aService;
  /** The card for a principal (undefined: the public card). */
  card: (principal?: Principal, origin?: string) => AgentCard;
  operators: ReadonlySet<string>;
  maxBodyBytes: number;
  /** Time a request body may take to arrive (408 and the connection closed past it). */
  bodyTimeoutMs: number;
  /** Open SSE streams (SendStreamingMessage, SubscribeToTask, both bindings and versions) one principal may hold; 429 past it. */
  maxStreamsPerPrincipal: number;
  logger: Logger;
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

/** Build the mount. */
export function createA2aMount(o: A2aMountOptions): HttpMount {
  const toA2aError = (e: unknown): A2aError => {
    if (e instanceof A2aError) return e;
    o.logger.error("a2a.failed", { error: e instanceof Error ? e.message : String(e) });
    return new A2aError("Internal", "internal error");
  };

  const openStreams = new Map<string, number>();
  /**
   * An SSE answer counted against its principal's open streams until it ends, or — at the cap — the 429
   * that `refuse` renders (the binding's error shape), with `Retry-After`.
   */
  const counted: CountedSse = (who, open, frame, onError, refuse) => {
    const held = openStreams.get(who.id) ?? 0;
    if (held >= o.maxStreamsPerPrincipal) {
      o.logger.warn("a2a.stream.refused", { principal: who.id, open: held });
      const res = refuse(
        new A2aError(
          "InvalidRequest",
          `Too Many Requests: this principal already holds ${o.maxStreamsPerPrincipal} open A2A streams; close one first`,
        ),
      );
      res.headers.set("retry-after", "5");
      return res;
    }
    const events = open();
    openStreams.set(who.id, held + 1);
    const release = () => {
      const n = (openStreams.get(who.id) ?? 1) - 1;
      if (n > 0) openStreams.set(who.id, n);
      else openStreams.delete(who.id);
    };
    return sseResponse(events, frame, onError, undefined, release);
  };

  /**
   * The service as a v0.3 request may use it: the v0.3 names map onto v1.0 operations only inside their
   * translation, so the permission is checked there; a refusal is thrown as the 403 response itself.
   */
  function gated(lacks: Refusal): A2aService {
    const check = (method: string): void => {
      const refused = lacks(method);
      if (refused) throw refused;
    };
    return {
      call: (m, p, w) => (check(m), o.service.call(m, p, w)),
      stream: (m, p, w) => (check(m), o.service.stream(m, p, w)),
      streams: (m) => o.service.streams(m),
    };
  }

  /** The protocol version the request speaks: "1.0", "0.3" (also when the header is absent: `implicit`), or the refusal. */
  function wireVersion(req: Request): { version: "1.0" | "0.3"; implicit: boolean } | A2aError {
    const v = req.headers.get("a2a-version") ?? new URL(req.url).searchParams.get("A2A-Version");
    if (v === null || v.trim() === "") return { version: "0.3", implicit: true };
    if (/^1(\.\d+)?$/.test(v.trim())) return { version: "1.0", implicit: false };
    if (isV03Version(v)) return { version: "0.3", implicit: false };
    return new A2aError("VersionNotSupported", `A2A-Version ${v.slice(0, 20)} is not supported: this agent speaks A2A 1.0 and 0.3`);
  }
  /** The v1.0 bindings' check: a request without the header is taken as 1.0 there (its paths and names are 1.0's). */
  function versionError(req: Request): A2aError | undefined {
    const w = wireVersion(req);
    if (w instanceof A2aError) return w;
    if (w.version === "0.3" && !w.implicit)
      return new A2aError("VersionNotSupported", "A2A 0.3 is served at the v0.3 names and paths (message/send, /v1/…), not here");
    return undefined;
  }

  function card(req: Request, conn: HttpRequestConn, principal?: Principal): Response {
    // The public card follows the request's version (absent means 0.3): a v0.3 client cannot read a v1.0 card.
    const w = wireVersion(req);
    const legacy = !principal && !(w instanceof A2aError) && w.version === "0.3";
    // Behind a proxy, the URLs in the card are the origin the proxy says the client reached.
    const origin = conn.publicOrigin;
    const body = JSON.stringify(legacy ? cardToV03(o.card(undefined, origin)) : o.card(principal, origin));
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    const headers = {
      "content-type": "application/json",
      etag,
      vary: "A2A-Version",
      "cache-control": principal || origin ? "private, max-age=60" : "public, max-age=300",
    };
    if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(req.method === "HEAD" ? null : body, { headers });
  }

  async function jsonRpc(req: Request, who: Principal, conn: HttpRequestConn, lacks: Refusal): Promise<Response> {
    if (req.method !== "POST") return new Response("Method Not Allowed", { status: 405, headers: { allow: "POST" } });
    const read = await readBoundedBody(req, o.maxBodyBytes, o.bodyTimeoutMs);
    if (!read.ok) return refusedBody(rpcError(null, bodyError(read.status, o.maxBodyBytes, o.bodyTimeoutMs), read.status), read.status);
    // Refused before anything parses or walks it: a deeply nested value stalls every recursive walk after.
    if (jsonTooDeep(read.text)) return rpcError(null, new A2aError("InvalidRequest", `Invalid Request: ${jsonDepthMessage()}`), 400);
    let msg: unknown;
    try {
      msg = JSON.parse(read.text);
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
    const method = r.method;
    const params = (r.params ?? {}) as Record<string, unknown>;
    const version = wireVersion(req);
    if (version instanceof A2aError) return rpcError(id, version);
    if (version.version === "0.3" && isV03Method(method)) return jsonRpcV03(method, params, id, who, conn, lacks);
    if (version.version === "0.3" && !version.implicit && !OPERATOR_METHODS.has(method))
      return rpcError(id, new A2aError("MethodNotFound", `Method not found in A2A 0.3: ${method.slice(0, 60)}`));
    if (!V1_METHODS.has(method) && !OPERATOR_METHODS.has(method))
      return rpcError(id, new A2aError("MethodNotFound", `Method not found: ${method.slice(0, 60)}`));
    const refused = lacks(method);
    if (refused) return refused;
    try {
      if (o.service.streams(method))
        return counted(
          who,
          () => o.service.stream(method, params, who),
          (e: StreamResponse) => ({ jsonrpc: "2.0", id, result: e }),
          (e) => ({ jsonrpc: "2.0", id, error: toA2aError(e).toJsonRpc() }),
          (e) => rpcError(id, e, 429),
        );
      // A blocking SendMessage sends nothing until the run ends: the connection's idle timer must not cut it.
      conn.holdOpen?.();
      const result = await o.service.call(method, params, who);
      return Response.json({ jsonrpc: "2.0", id, result });
    } catch (e) {
      return rpcError(id, toA2aError(e));
    }
  }

  /** A v0.3 JSON-RPC request: the v1.0 operation it maps to, with its params and answer translated. */
  async function jsonRpcV03(
    method: string,
    params: Record<string, unknown>,
    id: string | number | null,
    who: Principal,
    conn: HttpRequestConn,
    lacks: Refusal,
  ): Promise<Response> {
    const service = gated(lacks);
    try {
      if (v03Streams(method)) {
        const call = v03Stream(method, params);
        return counted(
          who,
          () => service.stream(call.method, call.params, who),
          (e) => ({ jsonrpc: "2.0", id, result: eventToV03(e) }),
          (e) => ({ jsonrpc: "2.0", id, error: toA2aError(e).toJsonRpc() }),
          (e) => rpcError(id, e, 429),
        );
      }
      conn.holdOpen?.();
      return Response.json({ jsonrpc: "2.0", id, result: await callV03(service, method, params, who) });
    } catch (e) {
      if (e instanceof Response) return e;
      return rpcError(id, toA2aError(e));
    }
  }

  async function rest(req: Request, sub: string, who: Principal, conn: HttpRequestConn, lacks: Refusal): Promise<Response> {
    const version = versionError(req);
    if (version) return restError(version);
    const url = new URL(req.url);
    const query = Object.fromEntries(url.searchParams);
    const route = restRoute(req.method, sub);
    if (!route) return restError(new A2aError("MethodNotFound", `no ${req.method} ${sub} in the HTTP+JSON binding`));
    const refused = lacks(route.method);
    if (refused) return refused;
    let params: Record<string, unknown> = { ...query, ...route.params };
    if (req.method === "POST") {
      const read = await readBoundedBody(req, o.maxBodyBytes, o.bodyTimeoutMs);
      if (!read.ok) return refusedBody(restError(bodyError(read.status, o.maxBodyBytes, o.bodyTimeoutMs), read.status), read.status);
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
    try {
      if (o.service.streams(route.method))
        return counted(
          who,
          () => o.service.stream(route.method, params, who),
          (e) => e,
          (e) => restBody(toA2aError(e)),
          (e) => {
            const body = restBody(e);
            return Response.json({ error: { ...body.error, code: 429, status: "RESOURCE_EXHAUSTED" } }, { status: 429 });
          },
        );
      conn.holdOpen?.();
      const result = await o.service.call(route.method, params, who);
      // SendMessage answers a SendMessageResponse; the others their message type.
      return Response.json(result);
    } catch (e) {
      return restError(toA2aError(e));
    }
  }

  return {
    match: (path) => path === AGENT_CARD_PATH || path === A2A_PATH || path.startsWith(`${A2A_PATH}/rest/`),
    isPublic: (path) => path === AGENT_CARD_PATH,
    async handle(req: Request, caller: Caller, conn: HttpRequestConn): Promise<Response> {
      const path = new URL(req.url).pathname;
      if (path === AGENT_CARD_PATH) {
        if (req.method !== "GET" && req.method !== "HEAD")
          return new Response("Method Not Allowed", { status: 405, headers: { allow: "GET, HEAD" } });
        return card(req, conn);
      }
      // The caller's W3C trace context (the `traceparent` header): the run's span becomes its child.
      const trace = traceCarrierFromMeta({
        traceparent: req.headers.get("traceparent") ?? undefined,
        tracestate: req.headers.get("tracestate") ?? undefined,
      });
      const who = { ...resolvePrincipal(caller.authInfo, o.operators), traceContext: trace };
      // What the principal may do (permissions.ts): 403 insufficient_scope before anything runs.
      const lacks: Refusal = (method) => {
        const needed = a2aPermission(method);
        return needed && !can(who, needed) ? (caller.forbid?.(needed) ?? new Response(null, { status: 403 })) : undefined;
      };
      if (path === A2A_PATH) return jsonRpc(req, who, conn, lacks);
      const sub = path.slice(`${A2A_PATH}/rest`.length);
      if (sub.startsWith("/v1/")) {
        const w = wireVersion(req);
        if (w instanceof A2aError) return v03RestError(w);
        return serveV03Rest(
          { service: gated(lacks), maxBodyBytes: o.maxBodyBytes, bodyTimeoutMs: o.bodyTimeoutMs, toA2aError, sse: counted },
          req,
          sub.slice(3),
          who,
          conn,
        );
      }
      if (sub === "/extendedAgentCard" && req.method === "GET") return card(req, conn, who);
      return rest(req, sub, who, conn, lacks);
    },
  };
}

/** The HTTP+JSON routes of the proto's `google.api.http` bindings (without tenants). */
function restRoute(method: string, sub: string): { method: string; params: Record<string, string> } | undefined {
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

function rpcError(id: string | number | null, e: A2aError, status = 200): Response {
  return Response.json({ jsonrpc: "2.0", id, error: e.toJsonRpc() }, { status });
}

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

function restError(e: A2aError, status?: number): Response {
  const body = restBody(e);
  return Response.json(body, { status: status ?? body.error.code });
}
