/**
 * Length-prefixed JSON framing for the internal subagent control channel: each frame is a 4-byte
 * big-endian unsigned length, then that many bytes of UTF-8 JSON. Never exposed outward (DESIGN.md).
 *
 * Why lengths and not lines: the parent reads a pipe shared with nothing else, and a length lets the reader
 * allocate once and skip an over-limit frame exactly, without scanning it. The decoder accepts any
 * chunking (a header split across chunks, many frames in one chunk) and never buffers more than one frame
 * under the limit: an over-limit frame is skipped as it streams past (or, with `oversize: "close"`, ends
 * decoding, for a peer that is presumed broken).
 */
import { AgentdError, type McpError, parseError } from "./errors.ts";

/** Bytes of the length header. */
export const LENGTH_HEADER_BYTES = 4;
/** Default largest frame body, in bytes (the same bound as the NDJSON decoder's). */
export const DEFAULT_MAX_LENGTH_PREFIXED_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();

/**
 * Encode one message as a frame. Throws a TypeError for values JSON cannot represent, and an `AgentdError`
 * `E_FRAME_TOO_LARGE` when the body exceeds `maxFrameBytes` (the receiver would drop it anyway).
 */
export function encodeLengthPrefixed(message: unknown, maxFrameBytes = DEFAULT_MAX_LENGTH_PREFIXED_BYTES): Uint8Array {
  const json = JSON.stringify(message);
  if (json === undefined) throw new TypeError("message is not representable as JSON");
  const body = encoder.encode(json);
  if (body.length > maxFrameBytes)
    throw new AgentdError("E_FRAME_TOO_LARGE", `frame of ${body.length} bytes exceeds the ${maxFrameBytes}-byte limit`, {
      data: { length: body.length, maxFrameBytes },
    });
  const frame = new Uint8Array(LENGTH_HEADER_BYTES + body.length);
  new DataView(frame.buffer).setUint32(0, body.length, false);
  frame.set(body, LENGTH_HEADER_BYTES);
  return frame;
}

/** Options for {@link LengthPrefixedDecoder}. */
export interface LengthPrefixedDecoderOptions {
  /** Largest accepted frame body in bytes. Default 4 MiB. */
  maxFrameBytes?: number;
  /** An over-limit frame is skipped and decoding goes on (`"skip"`, default), or decoding stops (`"close"`). */
  oversize?: "skip" | "close";
  /** One decoded JSON value (not yet validated as JSON-RPC). */
  onmessage: (value: unknown) => void;
  /**
   * A frame that could not be delivered: `McpError` -32700 for bad UTF-8 or JSON (the stream carries on);
   * `AgentdError` `E_FRAME_TOO_LARGE` for an over-limit frame; `AgentdError` `E_TRANSPORT` when the
   * stream ends inside a frame.
   */
  onerror: (error: McpError | AgentdError) => void;
}

/** Decodes a length-prefixed byte stream into JSON values. */
export class LengthPrefixedDecoder {
  private readonly max: number;
  private readonly text = new TextDecoder("utf-8", { fatal: true });
  private parts: Uint8Array[] = [];
  private pending = 0;
  /** Body length of the frame being read, once its header is complete. */
  private bodyLength = -1;
  /** Bytes still to drop of an over-limit frame. */
  private skipping = 0;
  private stopped = false;

  constructor(private readonly options: LengthPrefixedDecoderOptions) {
    this.max = options.maxFrameBytes ?? DEFAULT_MAX_LENGTH_PREFIXED_BYTES;
  }

  /** Bytes held in memory for the frame in progress (at most header + `maxFrameBytes`). */
  get bufferedBytes(): number {
    return this.pending;
  }

  /** True once an over-limit frame stopped decoding (`oversize: "close"`). Later bytes are ignored. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Feed the next chunk. Chunks must not be mutated afterwards. */
  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length && !this.stopped) {
      if (this.skipping > 0) {
        const n = Math.min(this.skipping, chunk.length - at);
        this.skipping -= n;
        at += n;
        continue;
      }
      const need = (this.bodyLength < 0 ? LENGTH_HEADER_BYTES : this.bodyLength) - this.pending;
      const n = Math.min(need, chunk.length - at);
      this.parts.push(chunk.subarray(at, at + n));
      this.pending += n;
      at += n;
      if (n === need) this.complete();
    }
  }

  /** The stream ended: report a frame cut short, if any. */
  end(): void {
    if (this.stopped || (this.pending === 0 && this.bodyLength < 0 && this.skipping === 0)) return;
    const where =
      this.skipping > 0
        ? `${this.skipping} bytes short of the end of a skipped frame`
        : this.bodyLength < 0
          ? `inside a length header (${this.pending} of ${LENGTH_HEADER_BYTES} bytes)`
          : `inside a frame (${this.pending} of ${this.bodyLength} bytes)`;
    this.reset();
    this.bodyLength = -1;
    this.skipping = 0;
    this.options.onerror(new AgentdError("E_TRANSPORT", `control channel ended ${where}`));
  }

  /** The header or the body in `parts` is complete. */
  private complete(): void {
    const bytes = this.take();
    if (this.bodyLength < 0) {
      const length = new DataView(bytes.buffer, bytes.byteOffset, LENGTH_HEADER_BYTES).getUint32(0, false);
      if (length > this.max) return this.oversize(length);
      // An empty body is complete on its header alone (and is not JSON: reported as such).
      if (length === 0) return this.deliver(bytes.subarray(0, 0));
      this.bodyLength = length;
      return;
    }
    this.bodyLength = -1;
    this.deliver(bytes);
  }

  private oversize(length: number): void {
    const close = this.options.oversize === "close";
    if (close) this.stopped = true;
    else this.skipping = length;
    this.options.onerror(
      new AgentdError(
        "E_FRAME_TOO_LARGE",
        `frame of ${length} bytes exceeds the ${this.max}-byte limit; ${close ? "decoding stopped" : "skipped"}`,
        { data: { length, maxFrameBytes: this.max } },
      ),
    );
  }

  private deliver(bytes: Uint8Array): void {
    let value: unknown;
    try {
      value = JSON.parse(this.text.decode(bytes));
    } catch {
      // Never echo the frame: it may hold secrets.
      this.options.onerror(parseError(`frame of ${bytes.length} bytes is not valid UTF-8 JSON`));
      return;
    }
    this.options.onmessage(value);
  }

  /** Join the buffered parts into one array and clear the buffer. */
  private take(): Uint8Array {
    const parts = this.parts;
    const size = this.pending;
    this.reset();
    if (parts.length === 1) return parts[0] as Uint8Array;
    const out = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  private reset(): void {
    this.parts = [];
    this.pending = 0;
  }
}
