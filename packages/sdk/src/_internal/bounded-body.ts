/**
 * Reading a peer's response body with a byte limit enforced while reading: every body agentd reads from a
 * model endpoint, an A2A agent, an OAuth / OpenID issuer or an MCP server goes through here, so an endless
 * or enormous answer costs at most the limit in memory and is then cut off (the connection closed) with one
 * line naming the endpoint (origin and path, never a query or credentials) and the limit.
 *
 * The hot path stays native: an answer that declares its length (`Content-Length`, no `Content-Encoding`)
 * within the limit is read by the runtime's own `arrayBuffer()`, which on Bun is several times cheaper than a
 * stream reader for small bodies; only an answer of unknown length (chunked, or compressed — a small gzip
 * can inflate to gigabytes) is read chunk by chunk and counted.
 */
import { AgentdError, type LocalErrorCode } from "../wire/errors.ts";

const MiB = 1024 * 1024;

/** Default byte limits per kind of peer (docs/failure.md "Size limits on what peers send"). */
export const BODY_LIMITS = {
  /** A model's whole answer: one JSON body, or all the events of one streamed answer (`model.maxResponseBytes`). */
  model: 64 * MiB,
  /** An A2A agent card. */
  a2aCard: 1 * MiB,
  /** An A2A reply (SendMessage, GetTask, CancelTask, a JSON answer to a stream request). */
  a2aReply: 16 * MiB,
  /** An OAuth / OpenID answer: discovery metadata, a JWKS, introspection, a token or registration answer. */
  issuer: 1 * MiB,
  /** The part of an error answer read for its message; the rest is not read (the request failed anyway). */
  errorDetail: 64 * 1024,
} as const;

/** What a bounded read names when it stops: the peer, its endpoint, the limit and the error to throw. */
export interface BodyBound {
  /** Most bytes read. */
  limit: number;
  /** Who answered, as an error line starts (`model endpoint`, `A2A agent 'research'`, `OpenID issuer`). */
  peer: string;
  /** The request's URL; errors show its origin and path only. */
  url: string | URL;
  /** The error's code (default `E_UPSTREAM`, which `agentd run` exits 4 for). */
  code?: LocalErrorCode;
  /** How to raise the limit, when it can be raised ("raise model.maxResponseBytes"). */
  hint?: string;
}

/** A URL as an error line may show it: origin and path, without user info, query or fragment ("" if none). */
export function shownUrl(url: string | URL): string {
  try {
    const u = new URL(String(url));
    return u.origin + u.pathname;
  } catch {
    return "";
  }
}

/** Bytes in a short human unit (`64 MiB`, `512 KiB`, `100 bytes`). */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** The one-line error of a body over its limit. */
export function bodyTooLarge(bound: BodyBound): AgentdError {
  const where = shownUrl(bound.url);
  return new AgentdError(
    bound.code ?? "E_UPSTREAM",
    `${where ? `${bound.peer} ${where}` : bound.peer} sent a response body over the ${formatBytes(bound.limit)} limit; agentd stopped reading and closed the connection${bound.hint ? ` (${bound.hint})` : ""}`,
    { data: { endpoint: where, limitBytes: bound.limit } },
  );
}

/** The declared length of an answer that is not compressed, else undefined (the decoded size is unknown). */
function declaredLength(res: Response): number | undefined {
  const encoding = res.headers.get("content-encoding");
  if (encoding && encoding.trim().toLowerCase() !== "identity") return undefined;
  const value = res.headers.get("content-length");
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/** Read the whole body, failing with {@link bodyTooLarge} (and closing the connection) past `bound.limit` bytes. */
export async function readBoundedBytes(res: Response, bound: BodyBound): Promise<Uint8Array> {
  const declared = declaredLength(res);
  if (declared !== undefined && declared > bound.limit) {
    await res.body?.cancel().catch(() => {});
    throw bodyTooLarge(bound);
  }
  if (!res.body) return new Uint8Array(0);
  if (declared !== undefined) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > bound.limit) {
        await reader.cancel().catch(() => {});
        throw bodyTooLarge(bound);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** {@link readBoundedBytes} decoded as UTF-8 text (as `Response.text()` decodes). */
export async function readBoundedText(res: Response, bound: BodyBound): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(res, bound));
}

/**
 * The start of an error answer, at most `maxBytes` of it (default {@link BODY_LIMITS.errorDetail}), for its
 * message: the rest is left unread and the connection closed. Never throws (an unreadable body is "").
 */
export async function readBodyPrefix(res: Response, maxBytes: number = BODY_LIMITS.errorDetail): Promise<string> {
  try {
    const declared = declaredLength(res);
    if (declared !== undefined && declared <= maxBytes) return await res.text();
    const reader = res.body?.getReader();
    if (!reader) return "";
    const decoder = new TextDecoder();
    let text = "";
    let bytes = 0;
    while (bytes < maxBytes) {
      const { value, done } = await reader.read();
      if (done) return text + decoder.decode();
      const room = maxBytes - bytes;
      bytes += value.byteLength;
      text += decoder.decode(value.byteLength > room ? value.subarray(0, room) : value, { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text + decoder.decode();
  } catch {
    return "";
  }
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The answer with its body read (bounded) into memory, for a library that reads the body itself (jose's
 * JWKS fetch, oauth4webapi): it gets an ordinary `Response` whose `json()` can no longer run unbounded.
 */
export async function bufferedResponse(res: Response, bound: BodyBound): Promise<Response> {
  if (NULL_BODY.has(res.status) || !res.body) return res;
  const body = await readBoundedBytes(res, bound);
  const headers = new Headers(res.headers);
  // The bytes are decoded already: a consumer must not take them for gzip, nor trust the old length.
  headers.delete("content-encoding");
  headers.set("content-length", String(body.byteLength));
  const copy = new Response(body as Uint8Array<ArrayBuffer>, { status: res.status, statusText: res.statusText, headers });
  Object.defineProperty(copy, "url", { value: res.url });
  Object.defineProperty(copy, "redirected", { value: res.redirected });
  return copy;
}
