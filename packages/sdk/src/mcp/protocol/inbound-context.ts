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
 * What a protocol's owner appends to the context of a request whose handler hands the context on (a
 * handshake-era server session: itself, its `log`, the client's capabilities), built into the same object
 * literal. Appended to the finished object instead, as before, the three properties cost three shape
 * changes and a larger backing store per request. The keys and values are those the owner would append.
 */
export interface ContextOwner {
  readonly clientCapabilities: unknown;
  /** The owner's log, for request `relatedRequestId` (the context's `log` calls it with the request's id). */
  log(level: never, data: unknown, logger: string | undefined, relatedRequestId: RequestId): Promise<void>;
  /** The `sendProgress` every request gets when the owner sends no progress; undefined when it does. */
  readonly mutedProgress: RequestContext["sendProgress"] | undefined;
}

/**
 * The {@link RequestContext} the protocol hands to a request handler: a plain object with its own
 * properties (handlers destructure and spread it), whose `signal` is an accessor that makes the signal on
 * first read; with an `owner`, its `session`, `log` and `clientCapabilities` follow (see {@link ContextOwner}).
 */
export function inboundContext(
  protocol: Protocol,
  flight: InFlight,
  requestId: RequestId,
  method: string,
  params: Record<string, unknown>,
  extra: MessageExtra | undefined,
  owner?: ContextOwner,
): RequestContext {
  const rawMeta = params._meta;
  const meta = (typeof rawMeta === "object" && rawMeta !== null ? rawMeta : {}) as Record<string, unknown>;
  const token = meta.progressToken;
  const progressToken: ProgressToken | undefined = typeof token === "string" || typeof token === "number" ? token : undefined;
  const sessionId = extra?.sessionId ?? protocol.transport.sessionId;
  return owner === undefined
    ? contextOf(protocol, flight, requestId, method, meta, progressToken, sessionId, extra?.authInfo)
    : ownedContextOf(protocol, flight, requestId, method, meta, progressToken, sessionId, extra?.authInfo, owner);
}

// The two literals below list the same first ten keys; they are two functions so that each builds its object
// in one literal. Everything their closures capture is a parameter: the engine keeps a function's captured
// parameters and its captured `const`s in two scope objects, so capturing both made two per request.

/** The context object and its closures. */
function contextOf(
  protocol: Protocol,
  flight: InFlight,
  requestId: RequestId,
  method: string,
  meta: Record<string, unknown>,
  progressToken: ProgressToken | undefined,
  sessionId: string | undefined,
  authInfo: MessageExtra["authInfo"],
): RequestContext {
  return {
    requestId,
    method,
    get signal() {
      return flight.signal;
    },
    meta,
    progressToken,
    sessionId,
    authInfo,
    sendNotification: (m, p) => protocol.notify(m, p, { relatedRequestId: requestId }),
    sendRequest: <T = Record<string, unknown>>(m: string, p?: Record<string, unknown>, o: RequestOptions = {}) =>
      protocol.request<T>(m, p, requestOptions(o, requestId, flight.signal)),
    // Without a token there is nothing to report to: one shared no-op rather than a closure per request.
    sendProgress:
      progressToken === undefined
        ? NO_PROGRESS
        : (progress, total, message) => sendProgress(protocol, flight, requestId, progressToken, progress, total, message),
  };
}

/** The context object with its owner's three keys after the protocol's ten. */
function ownedContextOf(
  protocol: Protocol,
  flight: InFlight,
  requestId: RequestId,
  method: string,
  meta: Record<string, unknown>,
  progressToken: ProgressToken | undefined,
  sessionId: string | undefined,
  authInfo: MessageExtra["authInfo"],
  owner: ContextOwner,
): RequestContext {
  return {
    requestId,
    method,
    get signal() {
      return flight.signal;
    },
    meta,
    progressToken,
    sessionId,
    authInfo,
    sendNotification: (m, p) => protocol.notify(m, p, { relatedRequestId: requestId }),
    sendRequest: <T = Record<string, unknown>>(m: string, p?: Record<string, unknown>, o: RequestOptions = {}) =>
      protocol.request<T>(m, p, requestOptions(o, requestId, flight.signal)),
    sendProgress:
      owner.mutedProgress ??
      (progressToken === undefined
        ? NO_PROGRESS
        : (progress, total, message) => sendProgress(protocol, flight, requestId, progressToken, progress, total, message)),
    session: owner,
    log: (level: never, data: unknown, logger?: string) => owner.log(level, data, logger, requestId),
    clientCapabilities: owner.clientCapabilities,
  } as RequestContext;
}

/** The options of a request sent on behalf of inbound request `requestId`: related to it, and aborted with it. */
function requestOptions(o: RequestOptions, requestId: RequestId, signal: AbortSignal): RequestOptions {
  return { ...o, relatedRequestId: requestId, signal: o.signal ? AbortSignal.any([o.signal, signal]) : signal };
}

/** `notifications/progress` for inbound request `requestId` (nothing once it was aborted). */
async function sendProgress(
  protocol: Protocol,
  flight: InFlight,
  requestId: RequestId,
  progressToken: ProgressToken,
  progress: number,
  total: number | undefined,
  message: string | undefined,
): Promise<void> {
  if (flight.aborted) return;
  const p: Record<string, unknown> = { progressToken, progress };
  if (total !== undefined) p.total = total;
  if (message !== undefined) p.message = message;
  await protocol.notify("notifications/progress", p, { relatedRequestId: requestId });
}
