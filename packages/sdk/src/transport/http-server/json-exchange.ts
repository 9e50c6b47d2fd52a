/**
 * One JSON-mode exchange: the responses of one POST, collected until none of its requests is pending. The
 * POST handler waits on it; the session settles it. Watching the client's abort signal is opt-in, for
 * answers that take a while: making a request's signal costs, and quick answers never need it.
 */
import type { JsonRpcMessage } from "../../wire/jsonrpc.ts";

/** A JSON-mode exchange: the responses of one POST, collected until none of its requests is pending. */
export class JsonExchange {
  settled = false;
  private messages: JsonRpcMessage[] = [];
  private waiter: ((messages: JsonRpcMessage[]) => void) | undefined;
  private signal: AbortSignal | undefined;
  private readonly onAbort = () => this.abandon();

  constructor(private readonly abandon: () => void) {}

  /** Abandon the exchange when `signal` aborts (the client went away); for answers that take a while. */
  watch(signal: AbortSignal): void {
    if (this.settled) return;
    if (signal.aborted) return this.abandon();
    this.signal = signal;
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The responses (an empty list when every request was cancelled). */
  result(): Promise<JsonRpcMessage[]> {
    if (this.settled) return Promise.resolve(this.messages);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** @internal */
  settle(messages: JsonRpcMessage[]): void {
    this.settled = true;
    this.messages = messages;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.waiter?.(messages);
  }
}
