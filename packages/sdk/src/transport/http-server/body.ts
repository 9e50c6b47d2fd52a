/**
 * Read a POST body with a hard size bound, never buffering more than the limit: `Content-Length` is checked
 * before reading, and a chunked body is counted as it streams and abandoned the moment it passes the limit.
 */

/** The body text, or the HTTP status to refuse it with. */
export type BodyResult = { ok: true; text: string } | { ok: false; status: 400 | 413 };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Read `req`'s body as UTF-8 text of at most `maxBytes` bytes. */
export async function readBoundedBody(req: Request, maxBytes: number): Promise<BodyResult> {
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    const n = Number(declared);
    if (!Number.isSafeInteger(n) || n < 0) return { ok: false, status: 400 };
    if (n > maxBytes) return { ok: false, status: 413 };
    // The length is declared and within bounds: the server never delivers more than it, so read at once.
    try {
      return decode(new Uint8Array(await req.arrayBuffer()), maxBytes);
    } catch {
      return { ok: false, status: 400 };
    }
  }
  const body = req.body;
  if (body === null) return { ok: true, text: "" };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        void reader.cancel().catch(() => {});
        return { ok: false, status: 413 };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, status: 400 };
  }
  let bytes: Uint8Array;
  if (chunks.length === 1) bytes = chunks[0]!;
  else {
    bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
  }
  return decode(bytes, maxBytes);
}

function decode(bytes: Uint8Array, maxBytes: number): BodyResult {
  if (bytes.byteLength > maxBytes) return { ok: false, status: 413 };
  try {
    return { ok: true, text: decoder.decode(bytes) };
  } catch {
    return { ok: false, status: 400 };
  }
}
