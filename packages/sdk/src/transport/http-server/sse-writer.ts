/**
 * One SSE response body that the server writes events into.
 *
 * Events written before the handler takes the body are buffered; if the stream has already ended by then
 * (the answer was ready at once) the body is one plain string and no stream machinery is built — the common
 * case for quick requests. Otherwise the body is a byte stream fed as events arrive.
 *
 * Bun sends response headers only with the first body byte, so every stream starts with a priming event
 * written at once. A peer that stops reading makes the queue grow; past `maxBufferedBytes` the stream is cut
 * (the peer may resume with `Last-Event-ID`) instead of buffering without bound.
 */
import { encodeSseComment, encodeSseEvent } from "../../wire/sse-encode.ts";

/** Why a stream stopped: we ended it, the peer went away, or the peer stopped reading. */
export type SseEndReason = "closed" | "disconnected" | "overflow";

const encoder = new TextEncoder();
const KEEP_ALIVE = encodeSseComment("keep-alive");

/** The writing end of one SSE response. */
export class SseWriter {
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Text written before the body was taken (null once taken). */
  private pending: string[] | null = [];
  private pendingLength = 0;
  /** Bytes enqueued since the consumer last drained the queue. */
  private queuedBytes = 0;
  private done = false;
  private readonly endListeners: ((reason: SseEndReason) => void)[] = [];

  constructor(
    private readonly maxBufferedBytes: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** Call `fn` once when the stream stops, whoever stopped it (`reason` says who). */
  onEnd(fn: (reason: SseEndReason) => void): void {
    if (this.done) fn("closed");
    else this.endListeners.push(fn);
  }

  /** Whether the stream still accepts writes. */
  get open(): boolean {
    return !this.done;
  }

  /**
   * The response body. Call once, after the first writes: a string when the stream already ended, else a
   * byte stream that starts with everything written so far.
   */
  takeBody(): string | ReadableStream<Uint8Array> {
    const buffered = this.pending ?? [];
    this.pending = null;
    if (this.done) return buffered.join("");
    // A peer that left before the body was taken never fires `abort` again: end the stream now.
    if (this.signal?.aborted) {
      this.finish("disconnected");
      return buffered.join("");
    }
    this.signal?.addEventListener("abort", () => this.finish("disconnected"), { once: true });
    // The default queuing strategy (count chunks, high-water mark 1) with our own byte count: a custom
    // `size` function costs ~3.5 kB per open stream, which 10,000 idle GET streams feel. `pull` runs when
    // the consumer has taken everything queued, so the count restarts there.
    return new ReadableStream<Uint8Array>({
      start: (c) => {
        this.controller = c;
        if (buffered.length) this.enqueue(buffered.join(""));
      },
      pull: () => {
        this.queuedBytes = 0;
      },
      cancel: () => this.finish("disconnected"),
    });
  }

  /** Write one event. Returns false when the stream is gone (or was just cut for overflow). */
  event(id: string | undefined, data: string, retry?: number): boolean {
    const e: { id?: string; data: string; retry?: number } = { data };
    if (id !== undefined) e.id = id;
    if (retry !== undefined) e.retry = retry;
    return this.push(encodeSseEvent(e));
  }

  /** Write a keep-alive comment. */
  keepAlive(): boolean {
    return this.push(KEEP_ALIVE);
  }

  /** End the stream normally: everything written so far is still delivered. */
  end(): void {
    if (this.done) return;
    try {
      this.controller?.close();
    } catch {
      // already closed by the consumer
    }
    this.finish("closed");
  }

  private push(text: string): boolean {
    if (this.done) return false;
    if (this.pending) {
      this.pendingLength += text.length;
      if (this.pendingLength > this.maxBufferedBytes) return this.overflow();
      this.pending.push(text);
      return true;
    }
    if (this.queuedBytes + text.length > this.maxBufferedBytes) return this.overflow();
    this.enqueue(text);
    return true;
  }

  private enqueue(text: string): void {
    const bytes = encoder.encode(text);
    this.queuedBytes += bytes.byteLength;
    this.controller!.enqueue(bytes);
  }

  private overflow(): false {
    try {
      this.controller?.error(new Error("SSE peer is not reading"));
    } catch {
      // already errored
    }
    this.pending = null;
    this.finish("overflow");
    return false;
  }

  private finish(reason: SseEndReason): void {
    if (this.done) return;
    this.done = true;
    for (const fn of this.endListeners.splice(0)) fn(reason);
  }
}
