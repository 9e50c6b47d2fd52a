/**
 * Read a POST body with a hard size bound, never buffering more than the limit: `Content-Length` is checked
 * before reading (the HTTP framing then ends the body there, so the runtime reads it whole, natively), and a
 * chunked body is counted as it streams and abandoned the moment it passes the limit.
 * The whole body must arrive within a deadline (default 10 s): a client trickling it a byte at a time would
 * otherwise hold the request, and its slot, for as long as it likes (Bun's idle timeout never fires while
 * bytes keep coming). Past the deadline the answer is 408, and the caller closes the connection
 * (`BODY_TIMEOUT_HEADERS`).
 */
import { type DeadlineEntry, deadlinesOf } from "./body-deadlines.ts";

/** The body text, or the HTTP status to refuse it with. */
export type BodyResult = { ok: true; text: string } | { ok: false; status: 400 | 408 | 413 };

/** How long a request body may take to arrive, by default (milliseconds). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** Headers of the 408 answer: the connection is closed, its unread body with it. */
export const BODY_TIMEOUT_HEADERS: Readonly<Record<string, string>> = Object.freeze({ connection: "close" });

const decoder = new TextDecoder("utf-8", { fatal: true });
/** The answers that carry no text, shared. */
const TOO_LARGE = Object.freeze({ ok: false, status: 413 } as const);
const TIMED_OUT: BodyResult = Object.freeze({ ok: false, status: 408 });
/** A body that could not be read, or was not UTF-8 (shared). */
export const UNREADABLE = Object.freeze({ ok: false, status: 400 } as const);
const EXPIRED = Symbol("expired");

/** Read `req`'s body as UTF-8 text of at most `maxBytes` bytes, all of it within `timeoutMs`. */
export function readBoundedBody(req: Request, maxBytes: number, timeoutMs = DEFAULT_BODY_TIMEOUT_MS): Promise<BodyResult> {
  const declared = req.headers.get("content-length");
  if (declared !== null) {
    const refused = declaredRefusal(declared, maxBytes);
    if (refused) return Promise.resolve(refused);
    // A declared length bounds what the runtime will read (the HTTP framing ends the body there; a request
    // that also says Transfer-Encoding is refused with 400 by the parsers of Bun and node:http before it gets
    // here), so the whole body is taken through the runtime's native path; only a chunked body is counted
    // as it streams. (Not even `req.body` is touched here: in Bun, making the stream costs more than reading.)
    return readDeclared(req, maxBytes, timeoutMs);
  }
  return readChunked(req, maxBytes, timeoutMs);
}

/** The refusal of a declared `Content-Length`: not a length (400), or past `maxBytes` (413); else undefined. */
export function declaredRefusal(declared: string, maxBytes: number): (BodyResult & { ok: false }) | undefined {
  const n = Number(declared);
  if (!Number.isSafeInteger(n) || n < 0) return UNREADABLE;
  if (n > maxBytes) return TOO_LARGE;
  return undefined;
}

/** A chunked body (no declared length): counted as it streams, against the deadline. */
async function readChunked(req: Request, maxBytes: number, timeoutMs: number): Promise<BodyResult> {
  const body = req.body;
  if (body === null) return { ok: true, text: "" };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof EXPIRED>((resolve) => (timer = setTimeout(() => resolve(EXPIRED), timeoutMs)));
  try {
    return await readWithin(body, maxBytes, expired);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A body of a declared length in flight: read whole by the runtime (`arrayBuffer()`), against its deadline
 * (`body-deadlines.ts`: one timer shared by every read, not one per request). Whichever comes first answers.
 */
class DeclaredRead implements DeadlineEntry {
  at = 0;
  prev: DeadlineEntry | undefined;
  next: DeadlineEntry | undefined;
  queued = false;

  constructor(
    private readonly whole: Promise<ArrayBuffer>,
    private readonly answer: (r: BodyResult) => void,
    private readonly maxBytes: number,
    private readonly deadlines: ReturnType<typeof deadlinesOf>,
  ) {}

  expire(): void {
    // The 408 closes the connection, which fails the read; nothing is left waiting on it.
    this.whole.catch(() => {});
    this.answer(TIMED_OUT);
  }

  read(bytes: ArrayBuffer): void {
    // Decoded as it came: a view over it would be one more object per request for the same bytes.
    if (this.deadlines.remove(this)) this.answer(decode(bytes, this.maxBytes));
  }

  failed(): void {
    if (this.deadlines.remove(this)) this.answer(UNREADABLE);
  }
}

/**
 * A body of a declared length, read whole by the runtime, against the deadline. Reading it through a
 * stream reader instead costs several times the rest of a small request (a promise race per chunk and the
 * stream machinery in JS).
 */
function readDeclared(req: Request, maxBytes: number, timeoutMs: number): Promise<BodyResult> {
  return new Promise<BodyResult>((answer) => {
    const deadlines = deadlinesOf(timeoutMs);
    const whole = req.arrayBuffer();
    const read = new DeclaredRead(whole, answer, maxBytes, deadlines);
    deadlines.add(read);
    whole.then(
      (bytes) => read.read(bytes),
      () => read.failed(),
    );
  });
}

async function readWithin(body: ReadableStream<Uint8Array>, maxBytes: number, expired: Promise<typeof EXPIRED>): Promise<BodyResult> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === EXPIRED) {
        void reader.cancel().catch(() => {});
        return { ok: false, status: 408 };
      }
      const { done, value } = next;
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

function decode(bytes: ArrayBuffer | Uint8Array, maxBytes: number): BodyResult {
  const text = decodeText(bytes, maxBytes);
  return typeof text === "string" ? { ok: true, text } : text === 413 ? TOO_LARGE : UNREADABLE;
}

/** A whole body's bytes as strict UTF-8 text of at most `maxBytes` bytes, or the status to refuse it with. */
export function decodeText(bytes: ArrayBuffer | Uint8Array, maxBytes: number): string | 400 | 413 {
  if (bytes.byteLength > maxBytes) return 413;
  try {
    return decoder.decode(bytes);
  } catch {
    return 400;
  }
}
