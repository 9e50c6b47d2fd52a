/**
 * The two HTTP bindings of A2A v1.0 the client speaks, behind one interface: JSON-RPC 2.0 (`POST` of
 * `{ method: "SendMessage", … }` to the interface URL, SSE of JSON-RPC responses for streams) and HTTP+JSON
 * (`POST /message:send`, `POST /message:stream`, `GET /tasks/{id}`, `POST /tasks/{id}:cancel`,
 * `GET /tasks/{id}:subscribe`). Every
 * request carries `A2A-Version: 1.0` (a request without it means 0.3 to a v1.0 server) and the configured
 * headers (auth). A peer's error becomes one `E_UPSTREAM` line naming the agent, the method and the code.
 * A reply is read up to `maxResponseBytes` (16 MiB by default; one SSE event up to 16M characters), and no
 * redirect to another origin is followed: the request carries the configured headers and the message.
 */
import * as v from "valibot";
import { BODY_LIMITS, readBoundedText } from "../../_internal/bounded-body.ts";
import { fetchFollowingRedirects } from "../../_internal/redirects.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { ChosenInterface } from "./agent-card.ts";
import { sseData } from "./sse-events.ts";
import { V03_CODEC, type JsonRpcCodec } from "./v03-codec.ts";

/** The protocol version this client speaks, sent as the `A2A-Version` header. */
export const A2A_VERSION = "1.0";

/** The methods the client calls. */
export type A2aMethod = "SendMessage" | "SendStreamingMessage" | "GetTask" | "CancelTask" | "SubscribeToTask";

/** What a binding needs to make requests. */
export interface BindingOptions {
  /** The agent's name, for error lines. */
  agent: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Most bytes read of one JSON reply (default 16 MiB). */
  maxResponseBytes?: number;
}

/** One binding: a unary call and a streamed call, both returning the method's result JSON. */
export interface A2aBinding {
  call(method: A2aMethod, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  stream(method: A2aMethod, params: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<unknown>;
}

const JsonRpcFailure = v.looseObject({ error: v.looseObject({ code: v.number(), message: v.string(), data: v.optional(v.unknown()) }) });

/** The reason a `google.rpc.ErrorInfo` detail gives, if any (A2A errors carry one). */
function reasonOf(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details)
    if (d && typeof d === "object" && typeof (d as { reason?: unknown }).reason === "string") return (d as { reason: string }).reason;
  return undefined;
}

function upstream(agent: string, method: string, detail: string, data?: Record<string, unknown>): AgentdError {
  return new AgentdError("E_UPSTREAM", `A2A agent '${agent}' (${method}): ${detail}`, { data });
}

/** Build the binding for the chosen interface (a v0.3 interface is spoken to through {@link V03_CODEC}). */
export function createBinding(chosen: ChosenInterface, options: BindingOptions): A2aBinding {
  if (chosen.version === "0.3") return jsonRpcBinding(chosen, options, V03_CODEC);
  return chosen.binding === "JSONRPC" ? jsonRpcBinding(chosen, options) : httpJsonBinding(chosen, options);
}

function headersFor(options: BindingOptions, accept: string, version = A2A_VERSION): Record<string, string> {
  return { ...options.headers, "content-type": "application/json", accept, "A2A-Version": version };
}

async function send(options: BindingOptions, method: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchFollowingRedirects(options.fetch ?? fetch, url, init, { peer: `A2A agent '${options.agent}' (${method})` });
  } catch (e) {
    if (init.signal?.aborted || AgentdError.isInstance(e)) throw e;
    throw upstream(options.agent, method, `cannot reach ${url}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** 401/403: the configured headers (token) are wrong or missing — say so whatever the body says. */
function refusedAuth(options: BindingOptions, method: string, res: Response): AgentdError | undefined {
  if (res.status !== 401 && res.status !== 403) return undefined;
  return upstream(options.agent, method, `HTTP ${res.status} ${res.statusText}: check the agent's headers (its token)`.replace("  ", " "), {
    status: res.status,
  });
}

async function readJson(options: BindingOptions, method: string, res: Response, limit?: number): Promise<unknown> {
  const text = await readBoundedText(res, {
    limit: limit ?? options.maxResponseBytes ?? BODY_LIMITS.a2aReply,
    peer: `A2A agent '${options.agent}' (${method})`,
    url: res.url,
  });
  try {
    return JSON.parse(text);
  } catch {
    throw upstream(options.agent, method, `HTTP ${res.status}, not JSON${text ? `: ${text.slice(0, 120)}` : ""}`);
  }
}

function jsonRpcBinding(chosen: ChosenInterface, options: BindingOptions, codec?: JsonRpcCodec): A2aBinding {
  let nextId = 1;
  const request = (method: A2aMethod, params: Record<string, unknown>, accept: string, signal?: AbortSignal) =>
    send(options, method, chosen.url, {
      method: "POST",
      headers: headersFor(options, accept, codec?.version),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method: codec ? codec.method(method) : method,
        params: codec ? codec.params(method, params) : chosen.tenant ? { tenant: chosen.tenant, ...params } : params,
      }),
      signal,
    });
  const unwrap = (method: A2aMethod, body: unknown): unknown => {
    const result = unwrapResult(method, body);
    if (!codec) return result;
    try {
      return codec.result(method, result);
    } catch (e) {
      throw upstream(
        options.agent,
        method,
        `the reply is not an A2A ${codec.version} result (${e instanceof Error ? e.message : String(e)})`,
      );
    }
  };
  const unwrapResult = (method: string, body: unknown): unknown => {
    const failed = v.safeParse(JsonRpcFailure, body);
    if (failed.success) {
      const { code, message, data } = failed.output.error;
      const reason = reasonOf(data);
      throw upstream(options.agent, method, `${message} (code ${code}${reason ? `, ${reason}` : ""})`, {
        code,
        reason: reason || undefined,
      });
    }
    if (typeof body !== "object" || body === null || !("result" in body))
      throw upstream(options.agent, method, "the reply is not a JSON-RPC response");
    return (body as { result: unknown }).result;
  };
  return {
    async call(method, params, signal) {
      const res = await request(method, params, "application/json", signal);
      const auth = refusedAuth(options, method, res);
      if (auth) throw auth;
      if (!res.ok && !(res.headers.get("content-type") ?? "").includes("json"))
        throw upstream(options.agent, method, `HTTP ${res.status} ${res.statusText}`.trim());
      return unwrap(method, await readJson(options, method, res));
    },
    async *stream(method, params, signal) {
      const res = await request(method, params, "text/event-stream", signal);
      const auth = refusedAuth(options, method, res);
      if (auth) throw auth;
      const type = res.headers.get("content-type") ?? "";
      // A server may refuse before streaming with a plain JSON-RPC error.
      if (!type.includes("text/event-stream")) {
        if (!res.ok && !type.includes("json")) throw upstream(options.agent, method, `HTTP ${res.status} ${res.statusText}`.trim());
        yield unwrap(method, await readJson(options, method, res));
        return;
      }
      if (!res.body) return;
      for await (const data of sseData(res.body)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch {
          throw upstream(options.agent, method, "a stream event is not JSON");
        }
        yield unwrap(method, parsed);
      }
    },
  };
}

/** HTTP+JSON paths of the methods (A2A v1.0, `google.api.http` options of `a2a.proto`). */
function route(method: A2aMethod, params: Record<string, unknown>): { verb: "GET" | "POST"; path: string; body?: unknown } {
  const id = encodeURIComponent(String(params.id ?? ""));
  switch (method) {
    case "SendMessage":
      return { verb: "POST", path: "/message:send", body: params };
    case "SendStreamingMessage":
      return { verb: "POST", path: "/message:stream", body: params };
    case "GetTask":
      return {
        verb: "GET",
        path: `/tasks/${id}${typeof params.historyLength === "number" ? `?historyLength=${params.historyLength}` : ""}`,
      };
    case "CancelTask":
      return { verb: "POST", path: `/tasks/${id}:cancel`, body: params };
    case "SubscribeToTask":
      return { verb: "GET", path: `/tasks/${id}:subscribe` };
  }
}

function httpJsonBinding(chosen: ChosenInterface, options: BindingOptions): A2aBinding {
  const base = chosen.url.replace(/\/+$/, "") + (chosen.tenant ? `/${encodeURIComponent(chosen.tenant)}` : "");
  const request = (method: A2aMethod, params: Record<string, unknown>, accept: string, signal?: AbortSignal) => {
    const r = route(method, params);
    return send(options, method, base + r.path, {
      method: r.verb,
      headers: headersFor(options, accept),
      body: r.body === undefined ? undefined : JSON.stringify(r.body),
      signal,
    });
  };
  const failure = async (method: string, res: Response): Promise<AgentdError> => {
    const auth = refusedAuth(options, method, res);
    if (auth) return auth;
    // Errors are `google.rpc.Status` JSON: `{ error: { code, status, message, details } }`.
    const body = (await readJson(options, method, res, BODY_LIMITS.errorDetail).catch(() => undefined)) as
      | { error?: { message?: unknown; status?: unknown; details?: unknown } }
      | undefined;
    const err = body?.error;
    const reason = reasonOf(err?.details);
    const what = typeof err?.message === "string" ? err.message : res.statusText || "request failed";
    return upstream(
      options.agent,
      method,
      `${what} (HTTP ${res.status}${reason ? `, ${reason}` : typeof err?.status === "string" ? `, ${err.status}` : ""})`,
      {
        status: res.status,
        reason: reason || undefined,
      },
    );
  };
  return {
    async call(method, params, signal) {
      const res = await request(method, params, "application/json", signal);
      if (!res.ok) throw await failure(method, res);
      return readJson(options, method, res);
    },
    async *stream(method, params, signal) {
      const res = await request(method, params, "text/event-stream", signal);
      if (!res.ok) throw await failure(method, res);
      if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
        yield await readJson(options, method, res);
        return;
      }
      if (!res.body) return;
      for await (const data of sseData(res.body)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(data);
        } catch {
          throw upstream(options.agent, method, "a stream event is not JSON");
        }
        yield parsed;
      }
    },
  };
}
