/**
 * The per-session {@link Transport} handed to `onsession`: the MCP server connects to it exactly as to a
 * stdio or in-memory transport. Inbound POST bodies arrive through `onmessage`; `send` routes through the
 * session (see `session.ts`).
 *
 * Every inbound message passes here, so this is where the transport notices `notifications/cancelled`: the
 * protocol layer then sends no response for that request (cancellation spec), and without being told the
 * session would keep its POST stream (or JSON exchange) open forever.
 */
import { AgentdError } from "../../wire/errors.ts";
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.ts";
import type { FrameError, MessageExtra, SendOptions, Transport } from "../types.ts";
import type { Session } from "./session.ts";

/** The transport of one Streamable HTTP session. */
export class HttpSessionTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: (error: FrameError) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private started = false;
  private didClose = false;
  /** Messages that arrived before `start` (none once started). */
  private queue: [unknown, MessageExtra][] | undefined;

  constructor(private readonly session: Session) {}

  /** The session id (the `Mcp-Session-Id` header value). */
  get sessionId(): string {
    return this.session.id;
  }

  /** The principal the session is bound to (undefined on an endpoint without auth). */
  get authInfo(): MessageExtra["authInfo"] {
    return this.session.authInfo;
  }

  /** Begin delivering inbound messages; those that arrived before are delivered now, in order. */
  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", "HTTP session transport already started");
    this.started = true;
    const queued = this.queue ?? [];
    this.queue = undefined;
    for (const [m, extra] of queued) this.dispatch(m, extra);
  }

  /** Route a message to the right stream of the session. Rejects once the session has ended. */
  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    this.session.send(message, options);
  }

  /** End the session (its id then answers 404). */
  async close(): Promise<void> {
    this.session.close("closed by server");
  }

  /** The negotiated revision, when the protocol layer knows it before the transport observes it. */
  setProtocolVersion(revision: string): void {
    this.session.protocolVersion = revision;
  }

  /** @internal Called by the HTTP handler for each inbound message. */
  deliver(message: unknown, extra: MessageExtra): void {
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined) this.session.cancelRequest(cancelled);
    else if (isInitializedNotification(message)) this.session.clientInitialized();
    if (!this.started) (this.queue ??= []).push([message, extra]);
    else this.dispatch(message, extra);
  }

  /** @internal Called once by the session when it ends. */
  closed(): void {
    if (this.didClose) return;
    this.didClose = true;
    this.queue = undefined;
    this.onclose?.();
  }

  private dispatch(message: unknown, extra: MessageExtra): void {
    try {
      this.onmessage?.(message, extra);
    } catch (e) {
      // A throwing handler must not take the HTTP request down with it.
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
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
