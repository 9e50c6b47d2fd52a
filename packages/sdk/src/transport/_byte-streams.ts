/**
 * Internal: one small interface over Node streams, web streams and Bun's `FileSink`, so {@link StreamTransport}
 * reads and writes any of them without importing a runtime. Node `Buffer` chunks are `Uint8Array`s, used as
 * they are.
 *
 * Flow control: a source can be paused and resumed, and a sink counts the characters of "owed" lines (what
 * we answer the peer) that were written but not yet taken by the OS, from each write's completion callback.
 * `writableLength` would be simpler, but Bun's `process.stdout` reports 0 there however much is queued.
 * This file has the types and the read side; the sinks are in `_byte-sinks.ts`.
 */

/** The subset of a Node `Readable` we use (process.stdin, a child's stdout, a socket). */
export interface NodeReadableLike {
  on(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  pause?(): unknown;
  resume?(): unknown;
  destroy?(): unknown;
}

/** The subset of a Node `Writable` we use (process.stdout, a child's stdin, a socket). */
export interface NodeWritableLike {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  end(): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
}

/**
 * Bun's `FileSink` (a `Bun.spawn` child's stdin, `Bun.file(…).writer()`): `write` takes what it can at once
 * and answers a byte count, or a promise that settles once the rest is written (or the write failed).
 */
export interface FileSinkLike {
  write(chunk: string): number | Promise<number> | unknown;
  end(): unknown;
  flush(): unknown;
}

/**
 * A source that attaches itself: its owner keeps the underlying stream (to drain or cancel it after the
 * transport let go of it) and lends it to the transport through {@link SourceLender.openSource}.
 */
export interface SourceLender {
  openSource(handlers: SourceHandlers): SourceHandle;
}

/** Where inbound bytes come from. */
export type ByteSource = NodeReadableLike | ReadableStream<Uint8Array> | SourceLender;
/** Where outbound bytes go. */
export type ByteSink = NodeWritableLike | WritableStream<Uint8Array> | FileSinkLike;

/** Callbacks a source reports to. `end` covers both a clean end and a close without one. */
export interface SourceHandlers {
  data(chunk: Uint8Array): void;
  end(): void;
  error(e: Error): void;
}

/** An attached source. */
export interface SourceHandle {
  /** Stop reporting; with `destroy`, also stop the underlying stream so the process can exit. */
  detach(destroy: boolean): void;
  /** Stop reading: the OS buffer fills and the writer on the other end blocks. Idempotent. */
  pause(): void;
  /** Read again after {@link pause}. Idempotent. */
  resume(): void;
}

/** An opened sink. `write` returns false when the caller should wait for `drained()`. */
export interface Sink {
  /** Queue a line; an `owed` line counts in {@link owedChars} until the OS has taken it. */
  write(line: string, owed?: boolean): boolean;
  /** Characters of owed lines accepted by `write` and not yet handed to the OS. */
  readonly owedChars: number;
  drained(): Promise<void>;
  end(): void;
}

/** What an opened sink reports. */
export interface SinkHandlers {
  /** A write failed (also the asynchronous failures). */
  error(e: Error): void;
  /** {@link Sink.owedChars} went down. */
  flushed(): void;
}

const encoder = new TextEncoder();
const noop = () => {};
const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/** Start reading a source. */
export function openSource(source: ByteSource, handlers: SourceHandlers): SourceHandle {
  if (isLender(source)) return source.openSource(handlers);
  return isWebReadable(source) ? openWebSource(source, handlers) : openNodeSource(source as NodeReadableLike, handlers);
}

function openNodeSource(s: NodeReadableLike, h: SourceHandlers): SourceHandle {
  const onData = (c: Uint8Array | string) => h.data(typeof c === "string" ? encoder.encode(c) : c);
  const onEnd = () => h.end();
  const onError = (e: unknown) => h.error(asError(e));
  s.on("data", onData);
  s.on("end", onEnd);
  s.on("close", onEnd);
  s.on("error", onError);
  let paused = false;
  return {
    pause() {
      if (paused) return;
      paused = true;
      s.pause?.();
    },
    resume() {
      if (!paused) return;
      paused = false;
      s.resume?.();
    },
    detach(destroy) {
      // Keep an error listener: an unhandled 'error' event would crash the process.
      s.on("error", noop);
      s.off("data", onData);
      s.off("end", onEnd);
      s.off("close", onEnd);
      s.off("error", onError);
      if (destroy) {
        s.pause?.();
        s.destroy?.();
      }
    },
  };
}

function openWebSource(s: ReadableStream<Uint8Array>, h: SourceHandlers): SourceHandle {
  const reader = s.getReader();
  let detached = false;
  // While paused the loop waits here, so nothing pulls: the stream's queue fills and its producer stops.
  let gate: Promise<void> | undefined;
  let open = noop;
  void (async () => {
    try {
      for (;;) {
        if (gate) await gate;
        if (detached) return;
        const { done, value } = await reader.read();
        if (detached) return;
        if (done) break;
        h.data(value);
      }
      h.end();
    } catch (e) {
      if (!detached) h.error(asError(e));
    }
  })();
  return {
    pause() {
      gate ??= new Promise<void>((r) => (open = r));
    },
    resume() {
      if (!gate) return;
      gate = undefined;
      open();
    },
    detach(destroy) {
      detached = true;
      open();
      if (destroy) reader.cancel().catch(noop);
    },
  };
}

const isLender = (s: ByteSource): s is SourceLender => typeof (s as SourceLender).openSource === "function";
const isWebReadable = (s: ByteSource): s is ReadableStream<Uint8Array> => typeof (s as ReadableStream<Uint8Array>).getReader === "function";
