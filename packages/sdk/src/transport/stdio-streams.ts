/**
 * NDJSON over any pair of byte streams: a readable (Node `Readable` or web `ReadableStream`) and a writable
 * (Node `Writable` or web `WritableStream`). The stdio transports are this over a process's pipes; it also
 * fits sockets and in-process stream pairs. No runtime API is imported here: the streams are passed in.
 */
import { AgentdError } from "../wire/errors.ts";
import type { JsonRpcMessage } from "../wire/jsonrpc.ts";
import { encodeNdjson, NdjsonDecoder } from "../wire/ndjson.ts";
import { openSink } from "./_byte-sinks.ts";
import { type ByteSink, type ByteSource, openSource, type Sink, type SourceHandle } from "./_byte-streams.ts";
import {
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_OUTPUT_HIGH_WATER_MARK,
  SENT,
  type MessageExtra,
  type SendOptions,
  type Transport,
} from "./types.ts";

export type { ByteSink, ByteSource } from "./_byte-streams.ts";

/** Options for {@link StreamTransport}. */
export interface StreamTransportOptions {
  /** Largest inbound frame in bytes; longer lines are dropped and reported. Default `DEFAULT_MAX_FRAME_BYTES`. */
  maxFrameBytes?: number;
  /** Refuse an inbound frame nesting deeper than this (-32600), before it is parsed. Default: no bound. */
  maxDepth?: number;
  /** End the writable when the transport closes (default true). Off for a process's own stdout. */
  endOutput?: boolean;
  /** Stop and destroy the readable when the transport closes (default true). */
  destroyInput?: boolean;
  /**
   * Stop reading input while more than this many characters of answers (responses and notifications: all
   * but our own requests) wait to be taken by the OS; read again below half of it. Default
   * `DEFAULT_OUTPUT_HIGH_WATER_MARK`.
   */
  outputHighWaterMark?: number;
  /**
   * When the readable ends: close the transport (`"close"`, the default), or only report it through
   * `oninputend` and keep sending (`"half-close"`), so a server can answer what it already received.
   */
  onInputEnd?: "close" | "half-close";
}

/**
 * A transport speaking NDJSON over a readable/writable pair.
 *
 * - `onclose` fires once: on `close()`, when the readable ends (the peer closed its side; with
 *   `onInputEnd: "half-close"` only `oninputend` fires then), or on a read or write error (reported
 *   through `onerror` first).
 * - `send` resolves once the frame is accepted by the writable, waiting for `drain` when its buffer is
 *   full; sends still waiting when the transport closes reject with `E_CONNECTION_CLOSED`.
 * - `start()` a second time rejects with `E_TRANSPORT`; the transport stays usable.
 * - Back-pressure: while the answers we owe the peer pile up unread (over `outputHighWaterMark`), input is
 *   not read, so a peer that pipelines requests and does not read cannot grow our memory. Our own requests
 *   never pause input: their responses are what a symmetric peer would be waiting to send us (two such
 *   peers pausing on each other's requests would deadlock).
 */
export class StreamTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: Transport["onframeerror"];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** With `onInputEnd: "half-close"`: the peer closed its side; the last (even unterminated) line is delivered. */
  oninputend?: () => void;

  private readonly decoder: NdjsonDecoder;
  private readonly sink: Sink;
  private source?: SourceHandle;
  private started = false;
  private closed = false;
  private inputPaused = false;
  private readonly highWaterMark: number;
  /** Rejects when the transport closes; sends waiting for `drain` race against it. */
  private readonly closedSignal: Promise<never>;
  private rejectClosed!: (e: Error) => void;

  constructor(
    private readonly input: ByteSource,
    output: ByteSink,
    private readonly options: StreamTransportOptions = {},
  ) {
    this.decoder = new NdjsonDecoder({
      maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
      maxDepth: options.maxDepth,
      onmessage: (value) => this.deliver(value),
      onerror: (error, responseTo) =>
        this.onframeerror?.(responseTo === undefined ? { error, recoverable: true } : { error, recoverable: true, responseTo }),
    });
    this.highWaterMark = options.outputHighWaterMark ?? DEFAULT_OUTPUT_HIGH_WATER_MARK;
    this.sink = openSink(output, { error: (e) => this.fail(e), flushed: () => this.maybeResume() });
    this.closedSignal = new Promise<never>((_, reject) => {
      this.rejectClosed = reject;
    });
    this.closedSignal.catch(() => {});
  }

  /** Whether the transport has closed (by either side). */
  get isClosed(): boolean {
    return this.closed;
  }

  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", "transport already started");
    if (this.closed) throw closedError();
    this.started = true;
    this.source = openSource(this.input, {
      data: (chunk) => {
        if (!this.closed) this.decoder.push(chunk);
      },
      end: () => {
        if (this.closed) return;
        this.decoder.end();
        if (this.options.onInputEnd !== "half-close") return this.finish();
        this.source?.detach(this.options.destroyInput ?? true);
        this.oninputend?.();
      },
      error: (e) => this.fail(e),
    });
    if (this.inputPaused) this.source.pause();
  }

  // Not an async function: a frame around it would cost a promise and a turn on every message; a line the
  // sink accepts answers one shared settled promise. Every failure still arrives as a rejection.
  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    let accepted: boolean;
    try {
      const line = encodeNdjson(message);
      const owed = !isRequest(message);
      accepted = this.sink.write(line, owed);
      if (owed && !this.inputPaused && this.sink.owedChars > this.highWaterMark) {
        this.inputPaused = true;
        this.source?.pause();
      }
    } catch (e) {
      return Promise.reject(e);
    }
    return accepted ? SENT : Promise.race([this.sink.drained(), this.closedSignal]);
  }

  /** Whether input is paused because answers to the peer wait unread (diagnostics, tests). */
  get isInputPaused(): boolean {
    return this.inputPaused;
  }

  async close(): Promise<void> {
    this.finish();
  }

  private maybeResume(): void {
    if (!this.inputPaused || this.closed || this.sink.owedChars > this.highWaterMark / 2) return;
    this.inputPaused = false;
    this.source?.resume();
  }

  /** Hook for subclasses: runs once, as the transport closes, before `onclose`. */
  protected released(): void {}

  private deliver(value: unknown): void {
    try {
      this.onmessage?.(value);
    } catch (e) {
      // A throwing handler must not break framing for the messages behind it.
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.onerror?.(error);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.rejectClosed(closedError());
    this.source?.detach(this.options.destroyInput ?? true);
    if (this.options.endOutput ?? true) this.sink.end();
    this.released();
    this.onclose?.();
  }
}

/** A request of ours (it has a method and an id); a batch reply (an array) is owed like any answer. */
const isRequest = (m: JsonRpcMessage): boolean => typeof m === "object" && m !== null && !Array.isArray(m) && "method" in m && "id" in m;

const closedError = () => new AgentdError("E_CONNECTION_CLOSED", "transport is closed");
