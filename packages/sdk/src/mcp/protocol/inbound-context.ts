/**
 * The context of one inbound request: what a handler receives besides the params. Its abort signal is made
 * only if the handler asks for it: most handlers never do, and an `AbortController` per request is native
 * memory a busy server churns.
 */
import type { MessageExtra } from "../../transport/types.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
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

/** `sendProgress` of a request that carried no progress token: does nothing. */
const NO_PROGRESS: RequestContext["sendProgress"] = async () => {};

/**
 * The {@link RequestContext} the protocol hands to a request handler: a plain object with its own
 * properties (handlers destructure and spread it), whose `signal` is an accessor that makes the signal on
 * first read.
 */
export function inboundContext(
  protocol: Protocol,
  flight: InFlight,
  requestId: RequestId,
  method: string,
  params: Record<string, unknown>,
  extra: MessageExtra | undefined,
): RequestContext {
  const rawMeta = params._meta;
  const meta = (typeof rawMeta === "object" && rawMeta !== null ? rawMeta : {}) as Record<string, unknown>;
  const token = meta.progressToken;
  const progressToken: ProgressToken | undefined = typeof token === "string" || typeof token === "number" ? token : undefined;
  return {
    requestId,
    method,
    get signal() {
      return flight.signal;
    },
    meta,
    progressToken,
    sessionId: extra?.sessionId ?? protocol.transport.sessionId,
    authInfo: extra?.authInfo,
    sendNotification: (m, p) => protocol.notify(m, p, { relatedRequestId: requestId }),
    sendRequest: <T = Record<string, unknown>>(m: string, p?: Record<string, unknown>, o: RequestOptions = {}) => {
      const signal = flight.signal;
      return protocol.request<T>(m, p, {
        ...o,
        relatedRequestId: requestId,
        signal: o.signal ? AbortSignal.any([o.signal, signal]) : signal,
      });
    },
    // Without a token there is nothing to report to: one shared no-op rather than a closure per request.
    sendProgress:
      progressToken === undefined
        ? NO_PROGRESS
        : async (progress, total, message) => {
            if (flight.aborted) return;
            const p: Record<string, unknown> = { progressToken, progress };
            if (total !== undefined) p.total = total;
            if (message !== undefined) p.message = message;
            await protocol.notify("notifications/progress", p, { relatedRequestId: requestId });
          },
  };
}
