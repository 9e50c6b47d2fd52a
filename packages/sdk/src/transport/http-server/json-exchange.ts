/**
 * One JSON-mode exchange: the responses of one POST, collected until none of its requests is pending. The
 * POST handler waits on it; the session settles it. Watching the client's abort signal is opt-in, for
 * answers that take a while: making a request's signal costs, and quick answers never need it.
 *
 * It is also what the session keeps on the exchange's stream (`PostStream.json`): one object per POST with
 * its methods on the prototype, no closures, as every JSON-mode request makes one.
 */
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";
import type { PostStream } from "./out-stream.ts";

/** Told when an exchange is settled or abandoned (the session that owns it). */
export interface JsonExchangeOwner {
  /** The exchange settled (its responses are complete). */
  exchangeSettled(): void;
  /** The client went away before the exchange settled. */
  exchangeAbandoned(stream: PostStream): void;
}

/** A JSON-mode exchange: the responses of one POST, collected until none of its requests is pending. */
export class JsonExchange {
  settled = false;
  /** The responses collected so far (all of them once settled). */
  readonly collected: JsonRpcMessage[] = [];
  declare private waiter: ((messages: JsonRpcMessage[]) => void) | undefined;
  declare private signal: AbortSignal | undefined;
  declare private onAbort: (() => void) | undefined;

  constructor(
    private readonly owner: JsonExchangeOwner,
    /** The session's stream this exchange collects for. */
    private readonly stream: PostStream,
  ) {}

  /** Abandon the exchange when `signal` aborts (the client went away); for answers that take a while. */
  watch(signal: AbortSignal): void {
    if (this.settled) return;
    if (signal.aborted) return this.owner.exchangeAbandoned(this.stream);
    this.signal = signal;
    this.onAbort = () => this.owner.exchangeAbandoned(this.stream);
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The responses (an empty list when every request was cancelled); `collected` itself once settled. */
  result(): Promise<JsonRpcMessage[]> {
    if (this.settled) return Promise.resolve(this.collected);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** @internal Nothing is pending any more: hand the responses over (once; later calls do nothing). */
  settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.exchangeSettled();
    if (this.onAbort) this.signal?.removeEventListener("abort", this.onAbort);
    this.waiter?.(this.collected);
  }
}
