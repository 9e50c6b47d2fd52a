/**
 * Request header helpers: `Accept` media ranges, `MCP-Protocol-Version`, and the header map handed upward
 * (lower-cased names, credentials stripped).
 */
import { isSupportedRevision } from "../../wire/codec.ts";

/** Whether an `Accept` header lists `type` (exactly, ignoring parameters; a `q=0` entry does not count). */
export function acceptsMedia(accept: string | null, type: string): boolean {
  if (accept === null) return false;
  for (const part of accept.split(",")) {
    const [range, ...params] = part.split(";");
    if (range?.trim().toLowerCase() !== type) continue;
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p))) continue;
    return true;
  }
  return false;
}

const acceptCache = new Map<string, boolean>();

/**
 * {@link acceptsMedia} for the pair a POST needs (JSON and SSE), memoised: a client sends the same header
 * every time, so the parse happens once per distinct value (the memo is bounded).
 */
export function acceptsJsonAndSse(accept: string | null): boolean {
  if (accept === null) return false;
  let ok = acceptCache.get(accept);
  if (ok === undefined) {
    ok = acceptsMedia(accept, "application/json") && acceptsMedia(accept, "text/event-stream");
    if (acceptCache.size >= 64) acceptCache.clear();
    acceptCache.set(accept, ok);
  }
  return ok;
}

/** Whether a `Content-Type` header is `application/json` (any parameters). */
export const isJsonContentType = (ct: string | null) =>
  ct !== null && (ct === "application/json" || ct.split(";", 1)[0]!.trim().toLowerCase() === "application/json");

/**
 * Check `MCP-Protocol-Version` against what this build speaks. Returns an error message for a 400, or null.
 * An absent header means the negotiated revision, or `2025-03-26` when nothing was negotiated. The spec
 * requires a 400 only for an "invalid or unsupported" value; a supported revision other than the negotiated
 * one is a client's SHOULD, accepted as the official SDK and conformance suite expect (transport spec,
 * "Protocol Version Header"). The session keeps speaking its negotiated revision either way.
 */
export function checkProtocolVersion(header: string | null, _negotiated: string | undefined): string | null {
  if (header === null) return null;
  if (!isSupportedRevision(header)) return `Unsupported MCP-Protocol-Version: ${header.slice(0, 40)}`;
  return null;
}

/** Headers never passed upward: credentials stay in the transport. */
const STRIPPED = new Set(["authorization", "proxy-authorization", "cookie"]);

/** The request headers for `MessageExtra.headers`: lower-cased names, credentials removed. Built on demand. */
export function upstreamHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((value, name) => {
    const n = name.toLowerCase();
    if (!STRIPPED.has(n)) out[n] = value;
  });
  return out;
}
