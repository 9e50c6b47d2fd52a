/**
 * One SSE response body that the server writes events into.
 *
 * Events written before the handler takes the body are buffered; if the stream has already ended by then
 * (the answer was ready at once) the body is one plain string and no stream machinery is built — the common
 * case for quick requests. Otherwise the body is a byte stream fed as events arrive.
 *
 * Bun sends response headers only with the first body byte, so a stream must not stay empty once its
 * response is handed over: it starts with the revision's priming event, or a comment line (which every SSE
 * reader ignores, WHATWG HTML "event stream interpretation"), or the response is held until the first
 * write ({@link SseWriter.written}). A peer that stops reading makes the sink's backlog grow; past
 * `maxBufferedBytes` the stream is ended (the peer may resume with `Last-Event-ID`) instead of buffering
 * without bound.
 *
 * A writer of an idle GET stream lives as long as its session, thousands at a time: it holds no closures
 * of its own (the stream's source is a small object, the server-wide end hook is shared) and builds its
 * listener list only when someone listens.
 */
import { encodeSseComment, encodeSseEvent } from "../../wire/sse-encode.ts";

/** Why a stream stopped: we ended it, the peer went away, or the peer stopped reading. */
export type SseEndReason = "closed" | "disconnected" | "overflow";

/** Told once when a writer stops (one per server, or the session the writer is attached to). */
export interface SseEndHook {
  writerEnded(writer: SseWriter, reason: SseEndReason): void;
}

const KEEP_ALIVE = encodeSseComment("keep-alive");
/** The retry interval of the last priming event written, and that event's text after its id (see `priming`). */
let primingRetry = -1;
let primingTail = "";
const STREAM_OPEN = encodeSseComment("stream open");

/** What the writer uses of Bun's direct-stream controller: stated here so the published declarations need no Bun types. */
interface DirectSink {
  write(text: string): number | Promise<number>;
  close(): void;
}

/** `ReadableStream` as Bun types it for direct sources (the DOM lib's declarations hide that overload). */
const DirectStream = ReadableStream as unknown as new (source: Bun.DirectUnderlyingSource<Uint8Array>) => ReadableStream<Uint8Array>;

/** Whether this runtime has Bun's direct streams (decided once; Node has only the standard kind). */
const HAS_DIRECT_STREAMS = "Bun" in globalThis;

/** Bytes a standard stream queues before a write reports back-pressure (the socket has not taken them). */
const QUEUE_HIGH_WATER = 64 * 1024;

const encoder = new TextEncoder();

/**
 * A standard byte stream fed by a writer, for runtimes without direct streams: a write past the queue's
 * high-water mark returns a promise that settles when the consumer reads again, which the writer counts
 * as backlog exactly as it counts a direct sink's.
 */
function standardStream(writer: SseWriter): ReadableStream<Uint8Array> {
  let wake: (() => void) | undefined;
  let waiting: Promise<number> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        writer.started({
          write(text) {
            const bytes = encoder.encode(text);
            controller.enqueue(bytes);
            if ((controller.desiredSize ?? 0) > 0) return bytes.byteLength;
            waiting ??= new Promise<number>((resolve) => (wake = () => resolve(0)));
            return waiting;
          },
          close() {
            controller.close();
          },
        });
      },
      pull() {
        const w = wake;
        wake = undefined;
        waiting = undefined;
        w?.();
      },
      cancel() {
        writer.disconnected();
      },
    },
    { highWaterMark: QUEUE_HIGH_WATER, size: (chunk) => chunk?.byteLength ?? 0 },
  );
}

/**
 * The writing end of one SSE response. It is also the underlying source of its body: a Bun "direct" stream,
 * written straight into the response sink (no queue, controller, reader or pending reads per stream — about
 * 1 kB less for every idle GET stream than a default stream), with its methods on the prototype (no
 * closures, no source object per stream). Runtimes without direct streams (Node) get a standard byte stream
 * with a bounded queue instead.
 */
export class SseWriter {
  private controller: DirectSink | undefined;
  /**
   * Text written before the response sink started (null once started), joined as it comes: a quick answer's
   * one event is then the body itself, with no list to hold it nor a join to make it.
   */
  private pending: string | null = "";
  /** Bytes the sink could not pass on to the socket since it last drained. */
  private queuedBytes = 0;
  private done = false;
  declare private endListeners: ((reason: SseEndReason) => void)[] | undefined;
  /** Told once at the first write or the end (see {@link written}). */
  declare private firstWrite: (() => void) | undefined;
  /** The data of the one event written so far, before the body was taken; undefined once anything else was. */
  declare private soleEventData: string | undefined;
  /** The session this writer carries a stream of (told when it stops, after the server-wide hook). */
  owner: SseEndHook | undefined;

  constructor(
    private readonly maxBufferedBytes: number,
    private readonly hook?: SseEndHook,
  ) {}

  /** Call `fn` once when the stream stops, whoever stopped it (`reason` says who). */
  onEnd(fn: (reason: SseEndReason) => void): void {
    if (this.done) fn("closed");
    else (this.endListeners ??= []).push(fn);
  }

  /** Whether nothing was written yet. */
  get empty(): boolean {
    return this.pending === "";
  }

  /**
   * The data of the only event written before the body was taken, when exactly one was (and nothing else):
   * a response that can go out as one JSON body instead of a stream.
   */
  get soleData(): string | undefined {
    return this.soleEventData;
  }

  /** Resolves at the first write or when the stream ends, whichever comes first. */
  written(): Promise<void> {
    if (!this.empty || this.done) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.firstWrite;
      this.firstWrite = () => {
        previous?.();
        resolve();
      };
    });
  }

  /** Whether the stream still accepts writes. */
  get open(): boolean {
    return !this.done;
  }

  /**
   * The response body. Call once, after the first writes: a string when the stream already ended, else a
   * byte stream that starts with everything written so far.
   *
   * @param request the request, when the body is taken after an await (the peer may have left in between,
   *   which only its abort signal tells); read only if the stream is still open, as making a request's
   *   signal costs. A body taken at once needs none: the stream's `cancel` says when the peer goes.
   */
  takeBody(request?: { readonly signal: AbortSignal }): string | ReadableStream<Uint8Array> {
    if (this.done) {
      const text = this.pending ?? "";
      this.pending = null;
      return text;
    }
    const signal = request?.signal;
    // A peer that left before the body was taken never fires `abort` again: end the stream now.
    if (signal?.aborted) {
      const text = this.pending ?? "";
      this.pending = null;
      this.finish("disconnected");
      return text;
    }
    signal?.addEventListener("abort", () => this.finish("disconnected"), { once: true });
    if (!HAS_DIRECT_STREAMS) return standardStream(this);
    // Writes keep buffering in `pending` until the sink calls `pull` (the response has started).
    return new DirectStream(this as Bun.DirectUnderlyingSource<Uint8Array>);
  }

  /** @internal The body is a direct stream (read by the runtime; on the prototype, not a field per writer). */
  get type(): "direct" {
    return "direct";
  }

  /** @internal Called once by the response sink (a reader would call it again per read: nothing more to do then). */
  pull(controller: DirectSink): void {
    this.started(controller);
  }

  /** @internal The consumer cancelled the stream: the peer went away. */
  cancel(): void {
    this.finish("disconnected");
  }

  /** @internal The response sink started: write what was buffered; close at once if ended meanwhile. */
  started(controller: DirectSink): void {
    if (this.controller) return;
    this.controller = controller;
    const first = this.pending ?? "";
    this.pending = null;
    if (first) this.write(first);
    // Ended (or cut) before the sink started: close now, or the response would stay open with nothing in it.
    if (this.done) controller.close();
  }

  /** @internal The consumer cancelled the stream: the peer went away. */
  disconnected(): void {
    this.finish("disconnected");
  }

  /** Write one event. Returns false when the stream is gone (or was just cut for overflow). */
  event(id: string | undefined, data: string, retry?: number): boolean {
    const e: { id?: string; data: string; retry?: number } = { data };
    if (id !== undefined) e.id = id;
    if (retry !== undefined) e.retry = retry;
    const first = this.empty;
    const ok = this.push(encodeSseEvent(e));
    if (first && ok) this.soleEventData = data;
    return ok;
  }

  /**
   * Write one event of ours, whose id is `<stream>.<seq>` (see `event-store.ts`): the same text as
   * {@link event} with that id, built without the general encoder's checks where they cannot fail (the id
   * is two numbers; serialised JSON holds no raw line break, and data that does takes the general path).
   */
  numbered(stream: number, seq: number, data: string, retry?: number): boolean {
    if (data.indexOf("\n") !== -1 || data.indexOf("\r") !== -1 || (retry !== undefined && !(Number.isInteger(retry) && retry >= 0)))
      return this.event(`${stream}.${seq}`, data, retry);
    const text =
      retry === undefined ? `id: ${stream}.${seq}\ndata: ${data}\n\n` : `id: ${stream}.${seq}\nretry: ${retry}\ndata: ${data}\n\n`;
    const first = this.empty;
    const ok = this.push(text);
    if (first && ok) this.soleEventData = data;
    return ok;
  }

  /**
   * Write one event of ours whose data is `JSON.stringify`'s output: {@link numbered} without its scan of the
   * data for line breaks, which serialised JSON never holds (every control character in a string is
   * escaped), so the answer's bytes are not read twice more before they are written.
   */
  numberedJson(stream: number, seq: number, json: string): boolean {
    const first = this.empty;
    const ok = this.push(`id: ${stream}.${seq}\ndata: ${json}\n\n`);
    if (first && ok) this.soleEventData = json;
    return ok;
  }

  /**
   * Write a stream's priming event, `<stream>.0` with the retry interval and empty data: the same text as
   * {@link numbered} would write, its tail after the id made once for the server's interval rather than
   * joined anew for every stream.
   */
  priming(stream: number, retry: number): boolean {
    if (retry !== primingRetry) {
      if (!(Number.isInteger(retry) && retry >= 0)) return this.numbered(stream, 0, "", retry);
      primingTail = `\nretry: ${retry}\ndata: \n\n`;
      primingRetry = retry;
    }
    const first = this.empty;
    const ok = this.push(`id: ${stream}.0${primingTail}`);
    if (first && ok) this.soleEventData = "";
    return ok;
  }

  /** Write a keep-alive comment. */
  keepAlive(): boolean {
    return this.push(KEEP_ALIVE);
  }

  /** Write a comment line: the first byte of a stream with nothing to say yet, ignored by every reader. */
  comment(): boolean {
    return this.push(STREAM_OPEN);
  }

  /** End the stream normally: everything written so far is still delivered. */
  end(): void {
    if (this.done) return;
    try {
      this.controller?.close();
    } catch {
      // already closed by the consumer
    }
    // Not started yet: `pending` is kept for `takeBody`, or for `started`, which then closes the stream.
    this.finish("closed");
  }

  private push(text: string): boolean {
    if (this.done) return false;
    if (this.soleEventData !== undefined) this.soleEventData = undefined;
    if (this.firstWrite) this.told();
    if (this.pending !== null) {
      // UTF-16 units: a bound on what waits for the sink to start.
      if (this.pending.length + text.length > this.maxBufferedBytes) return this.overflow();
      this.pending = this.pending === "" ? text : this.pending + text;
      return true;
    }
    // Only a backlog counts: the socket has pushed back and not drained since.
    if (this.queuedBytes > 0 && this.queuedBytes + Buffer.byteLength(text) > this.maxBufferedBytes) return this.overflow();
    this.write(text);
    return true;
  }

  /**
   * Write to the sink. A promise back means the socket did not take it all: those bytes count until that
   * write drains.
   */
  private write(text: string): void {
    const r = this.controller!.write(text);
    if (typeof r === "number") return;
    const bytes = Buffer.byteLength(text);
    this.queuedBytes += bytes;
    const drained = () => {
      this.queuedBytes -= bytes;
    };
    r.then(drained, drained);
  }

  private overflow(): false {
    // A plain close: an error would make Bun print a stack trace for the peer's doing. The sink holds at
    // most what was counted, until the peer reads or its idle timeout drops the connection.
    try {
      this.controller?.close();
    } catch {
      // already closed
    }
    this.pending = null;
    this.finish("overflow");
    return false;
  }

  /** Tell the waiter of {@link written} (once). */
  private told(): void {
    const fn = this.firstWrite;
    this.firstWrite = undefined;
    fn?.();
  }

  private finish(reason: SseEndReason): void {
    if (this.done) return;
    this.done = true;
    if (this.firstWrite) this.told();
    this.hook?.writerEnded(this, reason);
    this.owner?.writerEnded(this, reason);
    const listeners = this.endListeners;
    if (listeners === undefined) return;
    this.endListeners = undefined;
    for (const fn of listeners) fn(reason);
  }
}
