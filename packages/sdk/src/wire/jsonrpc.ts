/**
 * JSON-RPC 2.0 envelope: the types every layer above speaks, plus cheap, exact guards for the hot path.
 *
 * Schema libraries cost ~3x on per-message checks (see shared/NOTES.md), so the envelope is classified by
 * hand here; full valibot validation of params/results happens per method in the MCP codecs.
 */

/** A JSON-RPC request id. MCP forbids `null` ids on requests. */
export type RequestId = string | number;

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue | undefined };

/** A request: expects a response with the same id. */
export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

/** A notification: no id, no response. */
export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

/** A successful response. */
export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

/** The error object of an error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error response. `id` is absent when the request's id could not be read (parse error, invalid request):
 * MCP 2025-11-25 makes `id` optional on errors for exactly this case, and every official schema rejects the
 * JSON-RPC `null`, so we never emit it (we still accept `null` from peers).
 */
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}

/** Any single JSON-RPC message. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResultResponse | JsonRpcErrorResponse;

/** Standard JSON-RPC 2.0 error codes, plus the MCP-specific ones we use. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** MCP: resource not found (resources/read of an unknown URI). */
  ResourceNotFound: -32002,
  /** MCP 2025-11-25: URL-mode elicitation required. */
  UrlElicitationRequired: -32042,
  /** MCP 2026-07-28: the HTTP headers do not match the body, or a required header is missing. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the requested protocol version is not served (`data: { supported, requested }`). */
  UnsupportedProtocolVersion: -32022,
  /** Implementation-defined (server error range): the request was cancelled or timed out locally. */
  RequestTimeout: -32001,
  /** Implementation-defined: the connection closed before a response arrived. */
  ConnectionClosed: -32000,
} as const;

/** The kind of a decoded value, as classified by {@link classify}. */
export type MessageKind =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "result"; message: JsonRpcResultResponse }
  | { kind: "error"; message: JsonRpcErrorResponse }
  | { kind: "batch"; messages: unknown[] }
  /** Not a valid JSON-RPC message. `id` is the request id if one could be read (to address the -32600 reply). */
  | { kind: "invalid"; id: RequestId | null; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/**
 * Classify a JSON-parsed value as a JSON-RPC message, exactly and cheaply.
 * Never throws. Arrays are reported as `batch`; the caller decides per negotiated revision.
 */
export function classify(value: unknown): MessageKind {
  if (typeof value !== "object" || value === null) return { kind: "invalid", id: null, reason: "message is not a JSON object" };
  if (Array.isArray(value)) return { kind: "batch", messages: value };
  // Each member is read once; `in` is asked only where a member reads undefined (absent, or present but
  // undefined), which a parsed message's members never are: a valid message costs one read per member.
  const m = value as Record<string, unknown>;
  const rawId = m.id;
  const hasId = rawId !== undefined || "id" in m;
  const id = hasId && isId(rawId) ? rawId : null;
  if (m.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'jsonrpc must be "2.0"' };
  const method = m.method;
  if (method !== undefined || "method" in m) {
    if (typeof method !== "string") return { kind: "invalid", id, reason: "method must be a string" };
    const params = m.params;
    if (params !== undefined && !isObject(params)) return { kind: "invalid", id, reason: "params must be an object" };
    if ("result" in m || "error" in m) return { kind: "invalid", id, reason: "a request carries no result or error" };
    if (!hasId) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (id === null) return { kind: "invalid", id: null, reason: "id must be a string or a number" };
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  const result = m.result;
  if (result !== undefined || "result" in m) {
    if ("error" in m) return { kind: "invalid", id, reason: "a response has result or error, not both" };
    if (id === null) return { kind: "invalid", id: null, reason: "response id must be a string or a number" };
    if (!isObject(result)) return { kind: "invalid", id, reason: "result must be an object" };
    return { kind: "result", message: value as unknown as JsonRpcResultResponse };
  }
  const e = m.error;
  if (e !== undefined || "error" in m) {
    if (!isObject(e) || typeof e.code !== "number" || !Number.isInteger(e.code) || typeof e.message !== "string")
      return { kind: "invalid", id, reason: "error must be {code: integer, message: string}" };
    if (hasId && rawId !== null && id === null) return { kind: "invalid", id: null, reason: "bad error response id" };
    return { kind: "error", message: value as unknown as JsonRpcErrorResponse };
  }
  return { kind: "invalid", id, reason: "neither a request, a notification nor a response" };
}

/** Build a request. */
export const request = (id: RequestId, method: string, params?: Record<string, unknown>): JsonRpcRequest =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };

/** Build a notification. */
export const notification = (method: string, params?: Record<string, unknown>): JsonRpcNotification =>
  params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };

/** Build a result response. */
export const resultResponse = (id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse => ({
  jsonrpc: "2.0",
  id,
  result,
});

/** Build an error response. */
export const errorResponse = (id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcErrorResponse => {
  const error = data === undefined ? { code, message } : { code, message, data };
  return id === null ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
};
