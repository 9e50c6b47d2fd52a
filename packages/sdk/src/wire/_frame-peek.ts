/**
 * Internal: what an over-long NDJSON frame was, told from its first and last bytes only (the rest was
 * dropped unread, to keep memory bounded): whether it is a response, and to which request id. SDKs order
 * keys differently — `{"jsonrpc","id","result"}` (Python, ours) or `{"result",…,"jsonrpc","id"}` (the
 * official TypeScript SDK) — so the id is looked for as a first key or as the closing key; anything less
 * certain (an "id" that may be nested) is no answer.
 */
import type { RequestId } from "./jsonrpc.ts";

/** Lenient: the peeked edges may cut a character in two; only the ASCII of keys and ids matters. */
const peek = new TextDecoder("utf-8");
/** A JSON-RPC id as JSON text: a number or a string (ids are never objects). */
const ID = String.raw`(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")`;
const JSONRPC = String.raw`"jsonrpc"\s*:\s*"2\.0"\s*,\s*`;
/** The first key (after an optional "jsonrpc" and "id") is "result" or "error": a response. */
const RESPONSE_START = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC})?(?:"id"\s*:\s*${ID}\s*,\s*)?"(?:result|error)"\s*:`);
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC})?"id"\s*:\s*${ID}`);
/** `…,"id":X}` closing the line: the last key of the top-level object (a nested one would end in `}}`). */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);

/** The id of a frame whose start is `head`, when it is one of its first keys. */
export function idAtStart(head: Uint8Array): RequestId | undefined {
  const m = ID_AT_START.exec(peek.decode(head));
  return m ? parseId(m[1] as string) : undefined;
}

/** The id of a frame whose end is `tail`, when it is the top-level object's last key. */
export function idAtEnd(tail: Uint8Array): RequestId | undefined {
  const m = ID_AT_END.exec(peek.decode(tail));
  return m ? parseId(m[1] as string) : undefined;
}

function parseId(json: string): RequestId | undefined {
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === "string" || typeof v === "number" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a frame starting with `head` is a response: its first key (after "jsonrpc" and "id") is "result" or "error". */
export function looksLikeResponse(head: Uint8Array): boolean {
  return RESPONSE_START.test(peek.decode(head));
}
