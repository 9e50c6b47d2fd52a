/**
 * One JSON-mode exchange: the responses of one POST, collected until none of its requests is pending. The
 * POST handler waits on it; the session settles it. Watching the client's abort signal is opt-in, for
 * answers that take a while: making a request's signal costs, and quick answers never need it.
 *
 * It is also the exchange's stream itself, as the session keeps it (a `PostStream` whose `json` is itself):
 * one object per POST with its methods on the prototype, no closures, as every JSON-mode request makes one.
 */
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.ts";
import type { Answered } from "./session-replay.ts";
import type { PostStream } from "./out-stream.ts";
import type { SseWriter } from "./sse-writer.ts";

/** Told when an exchange is settled or abandoned (the session that owns it). */
export interface JsonExchangeOwner {
  /** The exchange settled (its responses are complete). */
  exchangeSettled(): void;
  /** The client went away before the exchange settled. */
  exchangeAbandoned(stream: PostStream): void;
}

/** A JSON-mode exchange: the responses of one POST, collected until none of its requests is pending. */
export class JsonExchange implements PostStream {
  settled = false;
  // The stream's fields (`PostStream`): a JSON body has no SSE writer and numbers no events.
  seq = 0;
  writer: SseWriter | null = null;
  declare answered?: Answered;
  /** This exchange: what marks the stream as a JSON exchange's. */
  readonly json: JsonExchange = this;
  /** The first response collected: a lone request's only one, held without a list. */
  first: JsonRpcMessage | undefined = undefined;
  /** The responses after the first (a batch's), listed only when there are any. */
  declare private more: JsonRpcMessage[] | undefined;
  declare private waiter: (() => void) | undefined;
  declare private signal: AbortSignal | undefined;
  declare private onAbort: (() => void) | undefined;

  constructor(
    private readonly owner: JsonExchangeOwner,
    /** The stream's number in its session. */
    readonly streamId: number,
    /** Its requests still awaiting a response (the exchange takes the array over). */
    readonly pending: RequestId[],
  ) {}

  /** Abandon the exchange when `signal` aborts (the client went away); for answers that take a while. */
  watch(signal: AbortSignal): void {
    if (this.settled) return;
    if (signal.aborted) return this.owner.exchangeAbandoned(this);
    this.signal = signal;
    this.onAbort = () => this.owner.exchangeAbandoned(this);
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Collect one response. */
  collect(message: JsonRpcMessage): void {
    if (this.first === undefined) this.first = message;
    else (this.more ??= []).push(message);
  }

  /** The responses collected, in order (an empty list when every request was cancelled). */
  collected(): JsonRpcMessage[] {
    if (this.first === undefined) return [];
    return this.more === undefined ? [this.first] : [this.first, ...this.more];
  }

  /** Settled: every response is collected. */
  result(): Promise<void> {
    if (this.settled) return Promise.resolve();
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** @internal Nothing is pending any more: hand the responses over (once; later calls do nothing). */
  settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.exchangeSettled();
    if (this.onAbort) this.signal?.removeEventListener("abort", this.onAbort);
    this.waiter?.();
  }
}
