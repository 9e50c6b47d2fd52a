/**
 * What a 2026-07-28 request needs of the HTTP layer. Headers it mirrors from its body (transport spec, "Standard Request Headers"):
 * `Mcp-Method` always, `Mcp-Name` for `tools/call` and `prompts/get` (`params.name`) and `resources/read`
 * (`params.uri`). A value that is not plain visible ASCII (or looks like the sentinel itself) travels as
 * `=?base64?…?=` ("Value Encoding"). And refusals: a stateless server answers them with a 4xx whose
 * body is the JSON-RPC error of the request, which the protocol layer must see as the answer.
 */
import { isModernRevision } from "../../wire/codec.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import { readBoundedText } from "./read-body.ts";

const NAMED: Readonly<Record<string, "name" | "uri">> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A header value as sent: as is when safe, else in the Base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  const sentinelLike = value.startsWith("=?base64?") && value.endsWith("?=");
  if (PLAIN.test(value) && !sentinelLike) return value;
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** Add the mirrored headers of `message` when `revision` is a stateless one. */
export function mirrorRequestHeaders(headers: Headers, revision: string | undefined, message: { method?: unknown; params?: unknown }): void {
  if (!isModernRevision(revision) || typeof message.method !== "string") return;
  headers.set("mcp-method", message.method);
  const field = NAMED[message.method];
  const value = field === undefined ? undefined : (message.params as Record<string, unknown> | undefined)?.[field];
  if (typeof value === "string") headers.set("mcp-name", encodeHeaderValue(value));
}

/**
 * The JSON-RPC error answering `requestId` in a refused POST's body, or undefined (the body is read from a
 * clone: the caller's error path can still read it).
 */
export async function readErrorAnswer(response: Response, requestId: RequestId, maxBytes: number, serverName: string): Promise<unknown> {
  if (!(response.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")) return undefined;
  try {
    const body = JSON.parse(await readBoundedText(response.clone(), maxBytes, serverName)) as Record<string, unknown>;
    const error = body.error as { code?: unknown } | undefined;
    return body.id === requestId && typeof error?.code === "number" ? body : undefined;
  } catch {
    return undefined;
  }
}
