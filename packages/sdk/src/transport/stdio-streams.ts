/**
 * NDJSON over any pair of byte streams: a readable (Node `Readable` or web `ReadableStream`) and a writable
 * (Node `Writable` or web `WritableStream`). The stdio transports are this over a process's pipes; it also
 * fits sockets and in-process stream pairs. No runtime API is imported here: the streams are passed in.
 */
import { AgentdError } from "../wire/errors.ts";
import type { JsonRpcMessage } from "../wire/jsonrpc.ts";
import { encodeNdjson, NdjsonDecoder } from "../wire/ndjson.ts";
import { type ByteSink, type ByteSource, openSink, openSource, type Sink, type SourceHandle } from "./_byte-streams.ts";
import { DEFAULT_MAX_FRAME_BYTES, type MessageExtra, type SendOptions, type Transport } from "./types.ts";

export type { ByteSink, ByteSource } from "./_byte-streams.ts";

/** Options for {@link StreamTransport}. */
export interface StreamTransportOptions {
  /** Largest inbound frame in bytes; longer lines are dropped and reported. Default `DEFAULT_MAX_FRAME_BYTES`. */
  maxFrameBytes?: number;
  /** End the writable when the transport closes (default true). Off for a process's own stdout. */
  endOutput?: boolean;
  /** Stop and destroy the readable when the transport closes (default true). */
  destroyInput?: boolean;
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
      onmessage: (value) => this.deliver(value),
      onerror: (error) => this.onframeerror?.({ error, recoverable: true }),
    });
    this.sink = openSink(output, (e) => this.fail(e));
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
  }

  async send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    if (this.closed) throw closedError();
    const line = encodeNdjson(message);
    if (!this.sink.write(line)) await Promise.race([this.sink.drained(), this.closedSignal]);
  }

  async close(): Promise<void> {
    this.finish();
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

const closedError = () => new AgentdError("E_CONNECTION_CLOSED", "transport is closed");
