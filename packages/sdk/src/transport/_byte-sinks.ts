/**
 * Internal: the write side of `_byte-streams.ts` — a Node `Writable`, a web `WritableStream` or Bun's
 * `FileSink` behind one {@link Sink}. Lines written in the same tick go out as one write; a sink counts the
 * characters of "owed" lines (what we answer the peer) until the OS has taken them, for back-pressure.
 */
import type { ByteSink, FileSinkLike, NodeWritableLike, Sink, SinkHandlers } from "./_byte-streams.ts";

const encoder = new TextEncoder();
const noop = () => {};
const asError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

/** Open a sink. */
export function openSink(sink: ByteSink, handlers: SinkHandlers): Sink {
  if (isWebWritable(sink)) return openWebSink(sink, handlers);
  return coalescing(isFileSink(sink) ? fileSinkWriter(sink, handlers) : nodeWriter(sink as NodeWritableLike, handlers), handlers);
}

/** Past this many buffered characters a sink writes at once instead of waiting for the end of the tick. */
const COALESCE_MAX_CHARS = 64 * 1024;

/** What a coalescing sink writes through: one chunk at a time. */
interface ChunkWriter {
  /** Write `chunk`; `done` runs once the OS has taken it, or the write failed. */
  write(chunk: string, done: (() => void) | undefined): void;
  /** Whether the writer holds more than it wants: the caller should wait for {@link drained}. */
  readonly full: boolean;
  drained(): Promise<void>;
  end(): void;
}

/**
 * Lines written in the same microtask checkpoint go out as one `write` (one syscall instead of one per
 * message: under load that is most of the cost of stdio). Order is kept; `end()` flushes first.
 */
function coalescing(w: ChunkWriter, h: SinkHandlers): Sink {
  // The lines of this turn, joined as they come (a rope the engine flattens once, at the write): the usual
  // turn has one line, which is written as it is, with no array around it.
  let pending = "";
  let pendingOwed = 0;
  let owed = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === "") return;
    const chunk = pending;
    const chunkOwed = pendingOwed;
    pending = "";
    pendingOwed = 0;
    // Called once the chunk is handed to the OS (or failed): only then has its memory gone.
    const done =
      chunkOwed === 0
        ? undefined
        : () => {
            owed -= chunkOwed;
            h.flushed();
          };
    w.write(chunk, done);
  };
  return {
    get owedChars() {
      return owed;
    },
    write(line, isOwed = false) {
      pending = pending === "" ? line : pending + line;
      if (isOwed) {
        pendingOwed += line.length;
        owed += line.length;
      }
      if (pending.length >= COALESCE_MAX_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
      return !w.full;
    },
    drained: () => w.drained(),
    end: () => {
      flush();
      w.end();
    },
  };
}

function nodeWriter(w: NodeWritableLike, h: SinkHandlers): ChunkWriter {
  let drain: Promise<void> | undefined;
  let full = false;
  w.on("error", (e: unknown) => h.error(asError(e)));
  w.on("drain", () => {
    full = false;
  });
  return {
    get full() {
      return full;
    },
    write(chunk, done) {
      try {
        if (!w.write(chunk, done)) full = true;
      } catch (e) {
        h.error(asError(e));
      }
    },
    // One shared 'drain' listener however many sends wait (no listener leak under a burst).
    drained: () =>
      full
        ? (drain ??= new Promise<void>((resolve) =>
            w.once("drain", () => {
              drain = undefined;
              resolve();
            }),
          ))
        : Promise.resolve(),
    end: () => {
      try {
        w.end();
      } catch {
        // Already ended or destroyed: nothing left to flush.
      }
    },
  };
}

/**
 * A `FileSink` writes what the pipe takes at once (a byte count) and keeps the rest, answering a promise for
 * it; while such a promise is open the sink is full. A failed write (EPIPE: the reader is gone) rejects it.
 */
function fileSinkWriter(s: FileSinkLike, h: SinkHandlers): ChunkWriter {
  let waiting: Promise<void> | undefined;
  return {
    get full() {
      return waiting !== undefined;
    },
    write(chunk, done) {
      let written: unknown;
      try {
        written = s.write(chunk);
      } catch (e) {
        done?.();
        return h.error(asError(e));
      }
      if (!(written instanceof Promise)) return done?.();
      const settled: Promise<void> = written.then(
        () => {
          if (waiting === settled) waiting = undefined;
          done?.();
        },
        (e: unknown) => {
          if (waiting === settled) waiting = undefined;
          done?.();
          h.error(asError(e));
        },
      );
      waiting = settled;
    },
    drained: () => waiting ?? Promise.resolve(),
    end: () => {
      try {
        const ended = s.end();
        if (ended instanceof Promise) ended.catch(noop);
      } catch {
        // Already ended: nothing left to flush.
      }
    },
  };
}

function openWebSink(w: WritableStream<Uint8Array>, h: SinkHandlers): Sink {
  const writer = w.getWriter();
  let owed = 0;
  return {
    get owedChars() {
      return owed;
    },
    write(line, isOwed = false) {
      const written = writer.write(encoder.encode(line));
      if (isOwed) {
        owed += line.length;
        const done = () => {
          owed -= line.length;
          h.flushed();
        };
        written.then(done, done);
      }
      written.catch((e) => h.error(asError(e)));
      return (writer.desiredSize ?? 1) > 0;
    },
    drained: () => writer.ready,
    end: () => {
      writer.close().catch(noop);
    },
  };
}

const isFileSink = (s: ByteSink): s is FileSinkLike =>
  typeof (s as FileSinkLike).flush === "function" && typeof (s as NodeWritableLike).on !== "function";
const isWebWritable = (s: ByteSink): s is WritableStream<Uint8Array> => typeof (s as WritableStream<Uint8Array>).getWriter === "function";
