/**
 * A minimal JSON-RPC 2.0 peer over length-prefixed frames: the control channel between a parent and a
 * subagent. Both ends use it (requests, answers, notifications in both directions). It knows nothing of
 * processes: bytes come and go through a {@link ControlIO} (a pipe in production, anything in tests).
 *
 * A broken channel (end of stream, write error, a frame over the limit) closes it once, with a reason;
 * pending requests reject with `E_CONNECTION_CLOSED`. Frames are never logged: they may hold user data.
 */
import { AgentdError, McpError } from "../wire/errors.ts";
import { classify, ErrorCode, errorResponse, notification, request, resultResponse, type RequestId } from "../wire/jsonrpc.ts";
import { encodeLengthPrefixed, LengthPrefixedDecoder } from "../wire/length-prefixed.ts";

/** Raw bytes in and out. Implementations: `control-pipe.ts`. */
export interface ControlIO {
  /** Queue bytes for the peer; failures are reported through `onError`. */
  write(bytes: Uint8Array): void;
  /** Resolves once everything written so far was handed to the OS (or the stream failed). */
  flush(): Promise<void>;
  /** Start delivering. Called once. */
  open(handlers: { data(chunk: Uint8Array): void; end(): void; error(e: Error): void }): void;
  /** Stop reading and writing and release the descriptor. Idempotent. */
  close(): void;
}

/** Handles requests from the peer: resolve with a result, throw `McpError` (or anything) for an error. */
export type ControlRequestHandler = (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** Options of a {@link ControlChannel}. */
export interface ControlChannelOptions {
  onRequest?: ControlRequestHandler;
  onNotification?: (method: string, params: Record<string, unknown>) => void;
  /** Called once when the channel closes, with why. */
  onClose?: (reason: string) => void;
  /** Largest frame body accepted and sent (default 4 MiB). */
  maxFrameBytes?: number;
}

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(e: Error): void;
}

/** One end of the control channel. */
export class ControlChannel {
  private readonly pending = new Map<RequestId, Pending>();
  private readonly decoder: LengthPrefixedDecoder;
  private nextId = 1;
  private closedReason: string | undefined;

  constructor(
    private readonly io: ControlIO,
    private readonly options: ControlChannelOptions = {},
  ) {
    this.decoder = new LengthPrefixedDecoder({
      maxFrameBytes: options.maxFrameBytes || undefined,
      // A peer that sends an over-limit frame is our own program misbehaving: stop trusting the stream.
      oversize: "close",
      onmessage: (value) => this.receive(value),
      onerror: (e) => {
        if (AgentdError.isInstance(e)) this.close(`control channel broken: ${e.message}`);
        // A frame that is not JSON is dropped; the stream itself is still aligned.
      },
    });
    io.open({
      data: (chunk) => this.decoder.push(chunk),
      end: () => {
        this.decoder.end();
        this.close("control channel closed by the peer");
      },
      error: (e) => this.close(`control channel error: ${e.message}`),
    });
  }

  /** Why the channel closed, or undefined while open. */
  get closed(): string | undefined {
    return this.closedReason;
  }

  /** Send a request; resolves with the result, rejects with `McpError` for an error answer. */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.closedReason) return Promise.reject(new AgentdError("E_CONNECTION_CLOSED", this.closedReason));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send(request(id, method, params));
    });
  }

  /** Send a notification (dropped silently once closed: nobody is listening). */
  notify(method: string, params: Record<string, unknown>): void {
    if (!this.closedReason) this.send(notification(method, params));
  }

  /** Resolves once written frames reached the OS. */
  flush(): Promise<void> {
    return this.io.flush();
  }

  /** Close the channel; pending requests reject. Idempotent. */
  close(reason = "control channel closed"): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.io.close();
    const error = new AgentdError("E_CONNECTION_CLOSED", reason);
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    this.options.onClose?.(reason);
  }

  private send(message: object): void {
    let frame: Uint8Array;
    try {
      frame = encodeLengthPrefixed(message, this.options.maxFrameBytes);
    } catch (e) {
      // Our own message cannot be framed (too large): answer with an error rather than break the stream.
      const m = message as { id?: RequestId; method?: string };
      if (m.method === undefined && m.id !== undefined)
        return this.send(errorResponse(m.id, ErrorCode.InternalError, `result could not be sent: ${(e as Error).message}`));
      const pending = m.id !== undefined ? this.pending.get(m.id) : undefined;
      if (pending) {
        this.pending.delete(m.id as RequestId);
        pending.reject(e as Error);
      }
      return;
    }
    this.io.write(frame);
  }

  private receive(value: unknown): void {
    const c = classify(value);
    switch (c.kind) {
      case "request":
        void this.answer(c.message.id, c.message.method, (c.message.params ?? {}) as Record<string, unknown>);
        return;
      case "notification":
        this.options.onNotification?.(c.message.method, (c.message.params ?? {}) as Record<string, unknown>);
        return;
      case "result":
      case "error": {
        const id = c.message.id;
        const p = id === null || id === undefined ? undefined : this.pending.get(id);
        if (!p) return;
        this.pending.delete(id as RequestId);
        if (c.kind === "result") p.resolve(c.message.result);
        else p.reject(McpError.fromError(c.message.error));
        return;
      }
      default:
        if (c.kind === "invalid" && c.id !== null) this.send(errorResponse(c.id, ErrorCode.InvalidRequest, `Invalid request: ${c.reason}`));
    }
  }

  private async answer(id: RequestId, method: string, params: Record<string, unknown>): Promise<void> {
    const handler = this.options.onRequest;
    if (!handler) return this.send(errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${method}`));
    try {
      const result = await handler(method, params);
      if (!this.closedReason) this.send(resultResponse(id, result));
    } catch (e) {
      if (this.closedReason) return;
      if (McpError.isInstance(e)) this.send(errorResponse(id, e.code, e.message, e.data));
      else this.send(errorResponse(id, ErrorCode.InternalError, e instanceof Error ? e.message : String(e)));
    }
  }
}
