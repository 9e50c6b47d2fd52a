/**
 * The envelope classifier as it was before it was tuned for the hot path (commit 4f4e94b), kept as the
 * oracle its replacement must agree with on every message shape (`jsonrpc.test.ts`). Test-only.
 */
import type { MessageKind, RequestId } from "../jsonrpc.ts";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/** The previous `classify`, verbatim. */
export function referenceClassify(value: unknown): MessageKind {
  if (Array.isArray(value)) return { kind: "batch", messages: value };
  if (!isObject(value)) return { kind: "invalid", id: null, reason: "message is not a JSON object" };
  const id = "id" in value && isId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'jsonrpc must be "2.0"' };
  const hasParams = "params" in value && value.params !== undefined;
  if ("method" in value) {
    if (typeof value.method !== "string") return { kind: "invalid", id, reason: "method must be a string" };
    if (hasParams && !isObject(value.params)) return { kind: "invalid", id, reason: "params must be an object" };
    if ("result" in value || "error" in value) return { kind: "invalid", id, reason: "a request carries no result or error" };
    if (!("id" in value)) return { kind: "notification", message: value as never };
    if (!isId(value.id)) return { kind: "invalid", id: null, reason: "id must be a string or a number" };
    return { kind: "request", message: value as never };
  }
  if ("result" in value) {
    if ("error" in value) return { kind: "invalid", id, reason: "a response has result or error, not both" };
    if (!isId(value.id)) return { kind: "invalid", id: null, reason: "response id must be a string or a number" };
    if (!isObject(value.result)) return { kind: "invalid", id, reason: "result must be an object" };
    return { kind: "result", message: value as never };
  }
  if ("error" in value) {
    const e = value.error;
    if (!isObject(e) || typeof e.code !== "number" || !Number.isInteger(e.code) || typeof e.message !== "string")
      return { kind: "invalid", id, reason: "error must be {code: integer, message: string}" };
    if ("id" in value && value.id !== null && !isId(value.id)) return { kind: "invalid", id: null, reason: "bad error response id" };
    return { kind: "error", message: value as never };
  }
  return { kind: "invalid", id, reason: "neither a request, a notification nor a response" };
}
