/**
 * The answer to one POST on the MCP endpoint while it is worked out: the promise the runtime waits on, and
 * the body read's deadline. The POST handler reads the body by awaiting the runtime's own read
 * (`arrayBuffer()`) and settles this answer itself when it is done; the deadline settles it first, with
 * 408, when the body is too slow (`body.ts`: a client trickling a body would otherwise hold the request).
 *
 * Why not `readBoundedBody` and an async handler whose promise is the answer: that costs, per request, a
 * promise of the read resolved from callbacks on the runtime's read (a closure each, and a hop), and a
 * catch-all chained on the handler's promise (another promise and hop). Here the handler waits on the
 * runtime's read directly, and the answer's promise, made once, is the one the runtime gets: measured per
 * JSON request, eight objects and two promise hops fewer (`bench/profile/request-allocs.ts`).
 */
import type { MessageKind, RequestId } from "../../wire/jsonrpc.ts";
import { BODY_TIMEOUT_HEADERS } from "./body.ts";
import { type DeadlineEntry, deadlinesOf } from "./body-deadlines.ts";
import { jsonRpcHttpError, parseErrorResponse, TRANSPORT_ERROR } from "./responses.ts";

/** The answer to a body that was not read: too large (413), too slow (408), or not UTF-8 (400). */
export function bodyRefused(status: number, maxBodyBytes: number, requestBodyTimeoutMs: number): Response {
  if (status === 413) return jsonRpcHttpError(413, TRANSPORT_ERROR, `Payload Too Large: the limit is ${maxBodyBytes} bytes`);
  if (status === 408)
    return jsonRpcHttpError(
      408,
      TRANSPORT_ERROR,
      `Request Timeout: the body did not arrive within ${requestBodyTimeoutMs} ms`,
      BODY_TIMEOUT_HEADERS,
    );
  return parseErrorResponse("body is not valid UTF-8");
}

type Settle = (response: Response) => void;

/** What `new Promise` hands its executor, taken by a function shared by every answer (no closure each). */
let taken: Settle | undefined;
function take(resolve: Settle): void {
  taken = resolve;
}

/**
 * The answer to one POST, settled once: by the handler, or by the body's deadline. It also carries what the
 * handler learnt routing the POST's messages (one object per POST rather than one more for those).
 */
export class PostAnswer implements DeadlineEntry {
  /** What the runtime waits on. */
  readonly promise: Promise<Response>;
  private readonly resolve: Settle;
  /** The ids of the POST's requests (its notifications and responses have none). */
  readonly requestIds: RequestId[] = [];
  /** The id of the `initialize` request among them, if any. */
  initializeId: RequestId | undefined = undefined;
  /** The revision that `initialize` asks for. */
  requestedRevision: unknown = undefined;
  /** A lone message's classification, handed on to the protocol (see `MessageExtra.classified`). */
  classified: MessageKind | undefined = undefined;
  at = 0;
  prev: DeadlineEntry | undefined;
  next: DeadlineEntry | undefined;
  queued = false;
  declare private deadlines: ReturnType<typeof deadlinesOf> | undefined;
  declare private whole: Promise<ArrayBuffer> | undefined;
  private maxBodyBytes = 0;
  private timeoutMs = 0;

  constructor() {
    this.promise = new Promise<Response>(take);
    this.resolve = taken as Settle;
    taken = undefined;
  }

  /**
   * Start the deadline of the body read `whole`: past `timeoutMs` the answer is 408, which closes the
   * connection and so fails the read (`maxBodyBytes` is only for the answer's wording).
   */
  deadline(whole: Promise<ArrayBuffer>, maxBodyBytes: number, timeoutMs: number): void {
    this.whole = whole;
    this.maxBodyBytes = maxBodyBytes;
    this.timeoutMs = timeoutMs;
    this.deadlines = deadlinesOf(timeoutMs);
    this.deadlines.add(this);
  }

  /** The body arrived, or failed: false when the deadline passed first (the answer is then already given). */
  arrived(): boolean {
    return this.deadlines === undefined || this.deadlines.remove(this);
  }

  /** @internal The deadline passed first. */
  expire(): void {
    // The 408 closes the connection, which fails the read; nothing is left waiting on it.
    this.whole?.catch(() => {});
    this.resolve(bodyRefused(408, this.maxBodyBytes, this.timeoutMs));
  }

  /** Give the answer (the first one given counts: the promise settles once). */
  settle(response: Response): void {
    this.resolve(response);
  }
}
