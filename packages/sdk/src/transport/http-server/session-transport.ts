/**
 * The {@link Transport} side of a Streamable HTTP session, handed to `onsession`: the MCP server connects to
 * it exactly as to a stdio or in-memory transport. Inbound POST bodies arrive through `deliver`; `send`
 * routes through the session (see `session.ts`).
 *
 * It is the base class of the session rather than an object of its own: a server may hold thousands of
 * idle sessions, and each is then one record. A protocol peer that attaches itself (`attach`) is called
 * through its methods, so an idle session holds no callback closures either; the `on…` callbacks still
 * work for any other user.
 *
 * Every inbound message passes here, so this is where the transport notices `notifications/cancelled`: the
 * protocol layer then sends no response for that request (cancellation spec), and without being told the
 * session would keep its POST stream (or JSON exchange) open forever.
 */
import { AgentdError } from "../../wire/errors.ts";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.ts";
import type { FrameError, MessageExtra, SendOptions, Transport, TransportPeer } from "../types.ts";

/** The transport of one Streamable HTTP session (the session itself; see `session.ts`). */
export abstract class HttpSessionTransport implements Transport {
  // Declared, not initialised: a session whose peer attached itself never gets these four slots.
  declare onmessage?: (message: unknown, extra?: MessageExtra) => void;
  declare onframeerror?: (error: FrameError) => void;
  declare onerror?: (error: Error) => void;
  declare onclose?: () => void;
  /** The authenticated principal that created the session, as the transport tells its MCP server. */
  authInfo: MessageExtra["authInfo"];
  /** The protocol peer, when it attached itself (the `on…` callbacks are then unused). */
  private peer: TransportPeer | undefined;
  private started = false;
  /** Messages that arrived before `start` (none once started). */
  declare private queue: [unknown, MessageExtra][] | undefined;

  /** The session id (the `Mcp-Session-Id` header value). */
  abstract readonly id: string;

  /** Route a message to the right stream of the session. Rejects once the session has ended. */
  abstract send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;

  /** End the session (its id then answers 404). */
  abstract close(reason?: string): Promise<void>;

  /** The client cancelled request `id`. */
  protected abstract cancelRequest(id: RequestId): void;

  /** The client sent `notifications/initialized`. */
  protected abstract clientInitialized(): void;

  /** The session id (the `Mcp-Session-Id` header value). */
  get sessionId(): string {
    return this.id;
  }

  /** Take the receiving peer as one object instead of the `on…` callbacks (see {@link TransportPeer}). */
  attach(peer: TransportPeer): void {
    this.peer = peer;
  }

  /** Begin delivering inbound messages; those that arrived before are delivered now, in order. */
  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", "HTTP session transport already started");
    this.started = true;
    const queued = this.queue ?? [];
    this.queue = undefined;
    for (const [m, extra] of queued) this.dispatch(m, extra);
  }

  /** @internal Called by the HTTP handler for each inbound message. */
  deliver(message: unknown, extra: MessageExtra): void {
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined) this.cancelRequest(cancelled);
    else if (isInitializedNotification(message)) this.clientInitialized();
    if (!this.started) (this.queue ??= []).push([message, extra]);
    else this.dispatch(message, extra);
  }

  /** Tell the peer the session ended (the session calls this once). */
  protected transportClosed(): void {
    this.queue = undefined;
    if (this.peer) this.peer.transportClosed();
    else this.onclose?.();
  }

  private dispatch(message: unknown, extra: MessageExtra): void {
    const peer = this.peer;
    try {
      if (peer) peer.receive(message, extra);
      else this.onmessage?.(message, extra);
    } catch (e) {
      // A throwing handler must not take the HTTP request down with it.
      const error = e instanceof Error ? e : new Error(String(e));
      if (peer) peer.transportError(error);
      else this.onerror?.(error);
    }
  }
}

/** Whether `message` is `notifications/initialized`. */
function isInitializedNotification(message: unknown): boolean {
  const m = message as { method?: unknown; id?: unknown } | null;
  return typeof m === "object" && m !== null && m.method === "notifications/initialized" && m.id === undefined;
}

/** The `requestId` of a `notifications/cancelled`, or undefined for any other message (a cheap hand guard). */
function cancelledRequestId(message: unknown): RequestId | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as { method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  if (m.method !== "notifications/cancelled" || m.id !== undefined) return undefined;
  const id = typeof m.params === "object" && m.params !== null ? m.params.requestId : undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
