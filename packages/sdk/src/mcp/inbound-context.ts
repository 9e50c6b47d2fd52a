/**
 * The context of one inbound request: what a handler receives besides the params. One object per request
 * with its methods on the prototype (no closures), and an abort signal made only if the handler asks for
 * it: most handlers never do, and an `AbortController` per request is native memory a busy server churns.
 */
import type { MessageExtra } from "../transport/types.ts";
import type { RequestId } from "../wire/jsonrpc.ts";
import type { Protocol } from "./protocol.ts";
import type { ProgressToken, RequestContext, RequestOptions } from "./types.ts";

/** An inbound request being handled: whether it was aborted, and its signal once someone asked. */
export class InFlight {
  /** Set when the peer cancelled: the handler's outcome is then dropped. */
  cancelled = false;
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;

  /** Whether the request was aborted (cancelled by the peer, or its connection closed). */
  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** The request's abort signal (created on first use; already aborted if the request was). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Abort the request once. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}

/** The {@link RequestContext} the protocol hands to a request handler. */
export class InboundContext implements RequestContext {
  readonly meta: Record<string, unknown>;
  readonly progressToken: ProgressToken | undefined;
  readonly sessionId: string | undefined;
  readonly authInfo: MessageExtra["authInfo"];

  constructor(
    private readonly protocol: Protocol,
    private readonly flight: InFlight,
    readonly requestId: RequestId,
    readonly method: string,
    params: Record<string, unknown>,
    extra: MessageExtra | undefined,
  ) {
    const meta = params._meta;
    this.meta = (typeof meta === "object" && meta !== null ? meta : {}) as Record<string, unknown>;
    const token = this.meta.progressToken;
    this.progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
    this.sessionId = extra?.sessionId ?? protocol.transport.sessionId;
    this.authInfo = extra?.authInfo;
  }

  get signal(): AbortSignal {
    return this.flight.signal;
  }

  sendNotification(method: string, params?: Record<string, unknown>): Promise<void> {
    return this.protocol.notify(method, params, { relatedRequestId: this.requestId });
  }

  sendRequest<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    const signal = this.signal;
    return this.protocol.request<T>(method, params, {
      ...options,
      relatedRequestId: this.requestId,
      signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal,
    });
  }

  async sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.progressToken === undefined || this.flight.aborted) return;
    const p: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) p.total = total;
    if (message !== undefined) p.message = message;
    await this.protocol.notify("notifications/progress", p, { relatedRequestId: this.requestId });
  }
}
