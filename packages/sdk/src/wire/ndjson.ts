/**
 * NDJSON framing (the stdio transport's wire format): one JSON value a line, `\n`-terminated.
 *
 * The decoder works on raw bytes so a multi-byte UTF-8 character split across chunks is never a problem:
 * bytes are buffered until a whole line exists, and only whole lines are decoded. It finds newlines with
 * `Uint8Array#indexOf` (native), never a per-byte JS loop, and keeps memory bounded: a line longer than the
 * limit is dropped as it streams past, not buffered.
 */
import { idAtEnd, idAtStart, looksLikeResponse } from "./_frame-peek.ts";
import { ErrorCode, type RequestId } from "./jsonrpc.ts";
import { McpError, parseError } from "./errors.ts";
import { jsonTooDeep, jsonDepthMessage } from "./json-depth.ts";

const LF = 10;
const CR = 13;
/** Same value as the transports' `DEFAULT_MAX_FRAME_BYTES` (wire cannot import the transport layer). */
const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

/** Options for {@link LineSplitter}. */
export interface LineSplitterOptions {
  /** The longest line (without its terminator) delivered whole. */
  maxLineBytes: number;
  /** An over-long line is either dropped (`"discard"`) or cut to `maxLineBytes` (`"truncate"`). */
  overflow: "discard" | "truncate";
  /** A complete line, without `\n` or a trailing `\r`. The bytes may alias a pushed chunk: copy to keep them. */
  online: (line: Uint8Array, truncated: boolean) => void;
  /**
   * `"discard"` mode: a line passed the limit and is being dropped (called once per such line, at once),
   * with its first bytes (up to 256) so the caller can tell what it was.
   */
  onoverflow?: (head: Uint8Array) => void;
  /** `"discard"` mode: the dropped line ended (newline or end of stream), with its last bytes (up to 256). */
  onoverflowend?: (tail: Uint8Array) => void;
}

/** How much of an over-long line's start and end is kept to tell what it was (its id, for a response). */
const PEEK_BYTES = 256;

/** Splits a byte stream into lines with bounded memory. Chunks pushed must not be mutated afterwards. */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private pending = 0;
  /** Inside an over-long line: drop bytes until the next newline. */
  private skipping = false;
  /** The last bytes of the line being skipped (only while someone listens for its end). */
  private tail: Uint8Array | undefined;

  constructor(private readonly options: LineSplitterOptions) {}

  /** Bytes of the current unfinished line held in memory (never more than `maxLineBytes + 1`). */
  get bufferedBytes(): number {
    return this.pending;
  }

  /** Whether the stream is inside a line (bytes buffered, or an over-long line being skipped). */
  get inLine(): boolean {
    return this.pending > 0 || this.skipping;
  }

  /** Feed the next chunk of the stream. */
  push(chunk: Uint8Array): void {
    const max = this.options.maxLineBytes;
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (this.skipping) {
        if (nl === -1) {
          this.keepTail(chunk.subarray(start));
          return;
        }
        this.keepTail(chunk.subarray(start, nl));
        this.endSkip();
        start = nl + 1;
        continue;
      }
      const end = nl === -1 ? chunk.length : nl;
      const length = this.pending + (end - start);
      // Without a newline yet, allow one byte more: it may be the CR of a CRLF terminator.
      const contentLength = nl === -1 ? length - 1 : length > 0 && lastByte(this.parts, chunk, start, end) === CR ? length - 1 : length;
      if (contentLength > max) {
        this.overflow(chunk.subarray(start, end), max);
        this.skipping = true;
        if (nl !== -1) this.endSkip();
        if (nl === -1) return;
        start = nl + 1;
        continue;
      }
      if (nl === -1) {
        this.parts.push(chunk.subarray(start));
        this.pending = length;
        return;
      }
      this.emit(this.take(chunk.subarray(start, end), contentLength), false);
      start = nl + 1;
    }
  }

  /** The stream ended: deliver a final line that had no terminator. */
  end(): void {
    if (this.skipping) {
      this.endSkip();
      return;
    }
    if (this.pending === 0) return;
    let length = this.pending;
    const line = this.take(new Uint8Array(0), length);
    if (line[length - 1] === CR) length -= 1;
    this.emit(line.subarray(0, length), false);
  }

  private overflow(segment: Uint8Array, max: number): void {
    if (this.options.overflow === "truncate") this.emit(this.take(segment, max), true);
    else {
      // What is held of the line (at most the limit) plus this segment: its start, and its end so far.
      const all = [...this.parts, segment];
      if (this.options.onoverflowend) this.tail = edge(all, "end");
      const head = this.options.onoverflow ? edge(all, "start") : undefined;
      this.parts = [];
      this.pending = 0;
      if (head) this.options.onoverflow?.(head);
    }
  }

  /** Keep the last {@link PEEK_BYTES} of the skipped line (a CR before the newline included: callers trim). */
  private keepTail(bytes: Uint8Array): void {
    if (!this.tail || bytes.length === 0) return;
    if (bytes.length >= PEEK_BYTES) {
      this.tail = bytes.slice(bytes.length - PEEK_BYTES);
      return;
    }
    const keep = Math.min(this.tail.length, PEEK_BYTES - bytes.length);
    const next = new Uint8Array(keep + bytes.length);
    next.set(this.tail.subarray(this.tail.length - keep));
    next.set(bytes, keep);
    this.tail = next;
  }

  private endSkip(): void {
    this.skipping = false;
    const tail = this.tail;
    this.tail = undefined;
    if (tail) this.options.onoverflowend?.(tail);
  }

  /** Join the buffered parts and `segment`, keeping the first `length` bytes; clears the buffer. */
  private take(segment: Uint8Array, length: number): Uint8Array {
    if (this.parts.length === 0) return segment.subarray(0, length);
    const out = new Uint8Array(length);
    let at = 0;
    for (const part of [...this.parts, segment]) {
      if (at >= length) break;
      const n = Math.min(part.length, length - at);
      out.set(n === part.length ? part : part.subarray(0, n), at);
      at += n;
    }
    this.parts = [];
    this.pending = 0;
    return out;
  }

  private emit(line: Uint8Array, truncated: boolean): void {
    this.options.online(line, truncated);
  }
}

/** The first or last {@link PEEK_BYTES} of the concatenation of `parts` (a copy). */
function edge(parts: Uint8Array[], side: "start" | "end"): Uint8Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const n = Math.min(PEEK_BYTES, total);
  const out = new Uint8Array(n);
  let skip = side === "start" ? 0 : total - n;
  let at = 0;
  for (const p of parts) {
    if (at >= n) break;
    if (skip >= p.length) {
      skip -= p.length;
      continue;
    }
    const piece = p.subarray(skip, skip + (n - at));
    out.set(piece, at);
    at += piece.length;
    skip = 0;
  }
  return out;
}

/** The byte before `end`, looking back into the buffered parts when the segment is empty. */
function lastByte(parts: Uint8Array[], chunk: Uint8Array, start: number, end: number): number | undefined {
  if (end > start) return chunk[end - 1];
  const last = parts[parts.length - 1];
  return last?.[last.length - 1];
}

/** Options for {@link NdjsonDecoder}. */
export interface NdjsonDecoderOptions {
  /** Largest accepted frame in bytes, newline excluded. Default 4 MiB (`DEFAULT_MAX_FRAME_BYTES`). */
  maxFrameBytes?: number;
  /** One parsed JSON value (not yet validated as JSON-RPC). */
  onmessage: (value: unknown) => void;
  /**
   * A frame that could not become a JSON value: -32700 for bad JSON or bad UTF-8, -32600 for an
   * over-long frame. The stream carries on after it. `responseTo` is set for an over-long frame recognised
   * as a response (from its first and last bytes): the id of the request it answers.
   */
  onerror: (error: McpError, responseTo?: RequestId) => void;
  /**
   * Refuse a frame nesting deeper than this (-32600) before parsing it (see `json-depth.ts`). Off by default:
   * a server reading untrusted peers turns it on.
   */
  maxDepth?: number;
}

/**
 * Decodes an NDJSON byte stream into JSON values. Blank lines are skipped; CRLF is accepted.
 *
 * Fast path: the complete lines in the middle of a chunk are decoded with one `TextDecoder` call and
 * split as a string (about twice as fast as decoding line by line); lines that straddle chunks, and
 * regions that could hold an over-long line, go through the bounded {@link LineSplitter}.
 */
export class NdjsonDecoder {
  private readonly splitter: LineSplitter;
  private readonly text = new TextDecoder("utf-8", { fatal: true });
  private readonly max: number;

  constructor(private readonly options: NdjsonDecoderOptions) {
    const max = options.maxFrameBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.max = max;
    this.splitter = new LineSplitter({
      maxLineBytes: max,
      overflow: "discard",
      online: (line) => this.line(line),
      onoverflow: (head) => this.oversized(head),
      onoverflowend: (tail) => {
        if (!this.awaitingTail) return;
        this.awaitingTail = false;
        this.reportOversized(idAtEnd(tail));
      },
    });
  }

  /** An over-long response whose id comes last (`{"result":…,"id":3}`): reported when its end is seen. */
  private awaitingTail = false;

  /**
   * An over-long frame is reported at once, unless its start says it is a response whose id has not been
   * seen yet: then at its end, with the id (the pending request can fail now instead of timing out).
   */
  private oversized(head: Uint8Array): void {
    if (!looksLikeResponse(head)) return this.reportOversized(undefined);
    const id = idAtStart(head);
    if (id !== undefined) return this.reportOversized(id);
    this.awaitingTail = true;
  }

  private reportOversized(responseTo: RequestId | undefined): void {
    const max = this.max;
    const error = new McpError(ErrorCode.InvalidRequest, `Invalid request: frame larger than ${max} bytes, discarded`, {
      maxFrameBytes: max,
    });
    if (responseTo === undefined) this.options.onerror(error);
    else this.options.onerror(error, responseTo);
  }

  /** Bytes of an unfinished frame held in memory (bounded by the frame limit). */
  get bufferedBytes(): number {
    return this.splitter.bufferedBytes;
  }

  /** Feed the next chunk of bytes. Chunks must not be mutated afterwards. */
  push(chunk: Uint8Array): void {
    let rest = chunk;
    if (this.splitter.inLine) {
      // Finish (or finish skipping) the line that began in an earlier chunk.
      const nl = chunk.indexOf(LF);
      if (nl === -1) return this.splitter.push(chunk);
      this.splitter.push(chunk.subarray(0, nl + 1));
      rest = chunk.subarray(nl + 1);
    }
    // A chunk usually ends with its last line's newline: no search for it then.
    const last = rest[rest.length - 1] === LF ? rest.length - 1 : rest.lastIndexOf(LF);
    if (last === -1) return this.splitter.push(rest);
    if (last <= this.max) this.lines(last + 1 === rest.length ? rest : rest.subarray(0, last + 1));
    else this.splitter.push(rest.subarray(0, last + 1));
    if (last + 1 < rest.length) this.splitter.push(rest.subarray(last + 1));
  }

  /** The stream ended: decode a final unterminated line, if any. */
  end(): void {
    this.splitter.end();
  }

  /** Complete lines, each with its newline, none longer than the limit (the whole region is not). */
  private lines(region: Uint8Array): void {
    let text: string;
    try {
      text = this.text.decode(region);
    } catch {
      // Bad UTF-8 somewhere: go line by line so only the bad line is reported.
      this.splitter.push(region);
      return;
    }
    const n = text.length;
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl === -1) return;
      const stop = nl > start && text.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      if (stop > start) {
        // The usual chunk is one line and its newline: JSON allows trailing whitespace, so the text is parsed
        // as it was decoded, with no copy of the line without its terminator.
        if (start === 0 && nl === n - 1) this.parse(text, n - stop);
        else this.parse(text.slice(start, stop), 0);
      }
      start = nl + 1;
    }
  }

  private line(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    let text: string;
    try {
      text = this.text.decode(bytes);
    } catch {
      this.options.onerror(parseError(`frame of ${bytes.length} bytes is not valid UTF-8`));
      return;
    }
    this.parse(text, 0);
  }

  /** Parse a line; `terminator` is how many characters at its end are its `\n` or `\r\n` (whitespace to JSON). */
  private parse(text: string, terminator: number): void {
    const maxDepth = this.options.maxDepth;
    // The bound is on the line without its terminator (a text of 2 × max + 1 characters is never scanned).
    if (maxDepth !== undefined && tooDeep(text, text.length - terminator, maxDepth)) {
      this.options.onerror(new McpError(ErrorCode.InvalidRequest, `Invalid request: ${jsonDepthMessage(maxDepth)}`, { maxDepth }));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Whitespace-only lines are blank lines, not errors. Never echo the frame: it may hold secrets.
      if (text.trim() === "") return;
      this.options.onerror(parseError(`frame of ${utf8Length(text) - terminator} bytes is not valid JSON`));
      return;
    }
    this.options.onmessage(value);
  }
}

/** Whether the first `length` characters of `text` nest deeper than `max` (see `json-depth.ts`). */
function tooDeep(text: string, length: number, max: number): boolean {
  if (length <= 2 * max + 1) return false;
  return jsonTooDeep(length === text.length ? text : text.slice(0, length), max);
}

const encoder = new TextEncoder();
const utf8Length = (text: string) => encoder.encode(text).length;
/**
 * One NDJSON frame. `JSON.stringify` escapes every newline inside strings, so the only raw `\n` is the
 * terminator. Throws a TypeError for values JSON cannot represent (undefined, a function, a BigInt).
 */
export function encodeNdjson(message: unknown): string {
  const json = JSON.stringify(message);
  if (json === undefined) throw new TypeError("message is not representable as JSON");
  return `${json}\n`;
}
