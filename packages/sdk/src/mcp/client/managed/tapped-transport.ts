/**
 * A pass-through {@link Transport} that reports when the transport itself knows the connection is gone.
 * The protocol engine owns `onerror` (it only logs), but on Streamable HTTP a lost session or an
 * unreachable server is reported there and nowhere else when no request is in flight (the server-push
 * GET stream met a 404, or gave up re-opening), so the managed client taps it.
 */
import type { FrameError, MessageExtra, SendOptions, Transport } from "../../../transport/types.ts";
import { AgentdError } from "../../../wire/errors.ts";
import type { JsonRpcMessage } from "../../../wire/jsonrpc.ts";
import type { LossReason } from "./replay-policy.ts";

/** Wraps `inner`; `onloss` hears of a lost session or a server-push stream that is gone for good. */
export class TappedTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: (error: FrameError) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly checks = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    readonly inner: Transport,
    private readonly onloss: (reason: LossReason, error: Error) => void,
  ) {
    inner.onmessage = (m, extra) => this.onmessage?.(m, extra);
    inner.onframeerror = (e) => this.onframeerror?.(e);
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => {
      this.tap(e);
      this.onerror?.(e);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get closeReason(): Error | undefined {
    return this.inner.closeReason;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    for (const t of this.checks) clearTimeout(t);
    this.checks.clear();
    return this.inner.close();
  }

  setProtocolVersion(revision: string): void {
    this.inner.setProtocolVersion?.(revision);
  }

  private tap(error: Error): void {
    if (AgentdError.isInstance(error) && error.code === "E_SESSION_EXPIRED") return this.onloss("session-expired", error);
    // A push stream that could not be re-opened after its retries (server unreachable) means the connection
    // is gone. A GET the server refuses (405, another 4xx, no event stream) does not: reconnecting would only
    // create session after session, so push simply stays off for this connection.
    const state = () => (this.inner as { getStreamState?: string }).getStreamState;
    if (state() === undefined || !AgentdError.isInstance(error) || error.code !== "E_CONNECTION_CLOSED") return;
    // The stream reports its last failure just before it ends: look once it has settled.
    const check = setTimeout(() => {
      this.checks.delete(check);
      if (state() === "failed") this.onloss("push-stream-failed", error);
    }, 0);
    this.checks.add(check);
  }
}
