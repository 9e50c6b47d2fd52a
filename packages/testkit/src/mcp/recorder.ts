/**
 * The fake server's memory: every request, notification and cancellation it received, recorded at the
 * transport (before any validation, so a test sees exactly what arrived, `_meta` included), and waiters
 * that resolve when a matching record appears — tests wait for events, never sleep.
 */
import type { MessageExtra, SendOptions, Transport } from "@agentd/sdk/transport";
import type { JsonRpcMessage, RequestId } from "@agentd/sdk/wire";
import type { RecordedCancellation, RecordedNotification, RecordedRequest } from "./types.ts";

/** Default bound of a wait: long enough for a loaded machine, short enough to fail with a message. */
export const DEFAULT_WAIT_MS = 15_000;

type Match<T> = string | ((record: T) => boolean);

interface Waiter {
  test: () => boolean;
  settle: (error?: Error) => void;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/** Records of one fake server, across all its sessions. */
export class Recorder {
  readonly requests: RecordedRequest[] = [];
  readonly notifications: RecordedNotification[] = [];
  readonly cancellations: RecordedCancellation[] = [];
  private readonly waiters = new Set<Waiter>();
  /** Called with each new request (the stdio bin appends it to its record file). */
  onrequest?: (request: RecordedRequest) => void;

  /** Record one inbound value of `session` (anything that is not a request or notification is ignored). */
  inbound(session: string, value: unknown): void {
    const values = Array.isArray(value) ? value : [value];
    for (const m of values) {
      if (!isObject(m) || typeof m.method !== "string") continue;
      const params = isObject(m.params) ? m.params : {};
      const at = Date.now();
      if ("id" in m) {
        if (!isId(m.id)) continue;
        const request: RecordedRequest = {
          session,
          id: m.id,
          method: m.method,
          params,
          meta: isObject(params._meta) ? params._meta : {},
          at,
        };
        this.requests.push(request);
        this.onrequest?.(request);
      } else {
        this.notifications.push({ session, method: m.method, params, at });
        if (m.method === "notifications/cancelled" && isId(params.requestId)) this.cancelled(session, params.requestId, params.reason, at);
      }
    }
    this.wake();
  }

  /** A running tool of `session` stopped because its request was cancelled. */
  interrupted(session: string, requestId: RequestId): void {
    const record = this.cancellations.findLast((c) => c.session === session && c.requestId === requestId);
    if (record) record.interrupted = true;
    this.wake();
  }

  /** Wait for a record in `list` matching `match` (a method name, or a predicate). */
  waitFor<T extends { method?: string }>(
    list: readonly T[],
    match: Match<T> | undefined,
    what: string,
    timeoutMs = DEFAULT_WAIT_MS,
  ): Promise<T> {
    const test = typeof match === "function" ? match : (r: T) => match === undefined || r.method === match;
    const found = () => list.find(test);
    const now = found();
    if (now) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => waiter.settle(new Error(`fake MCP server: no ${what} after ${timeoutMs} ms`)), timeoutMs);
      const waiter: Waiter = {
        test: () => found() !== undefined,
        settle: (error) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          if (error) reject(error);
          else resolve(found() as T);
        },
      };
      this.waiters.add(waiter);
    });
  }

  private cancelled(session: string, requestId: RequestId, reason: unknown, at: number): void {
    const request = this.requests.findLast((r) => r.session === session && r.id === requestId);
    const record: RecordedCancellation = { session, requestId, interrupted: false, at };
    if (typeof reason === "string") record.reason = reason;
    if (request) record.method = request.method;
    if (request?.method === "tools/call" && typeof request.params.name === "string") record.tool = request.params.name;
    this.cancellations.push(record);
  }

  private wake(): void {
    for (const w of [...this.waiters]) if (w.test()) w.settle();
  }
}

let sessions = 0;

/**
 * A transport that records every inbound value before the server sees it. Its `sessionId` is the inner
 * transport's (Streamable HTTP) or a fresh `fake-session-N`, so records and `ServerSession.id` agree.
 */
export class RecordingTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: Transport["onframeerror"];
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly key: string;

  constructor(
    private readonly inner: Transport,
    private readonly recorder: Recorder,
  ) {
    this.key = inner.sessionId ?? `fake-session-${++sessions}`;
  }

  get sessionId(): string {
    return this.inner.sessionId ?? this.key;
  }

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      this.recorder.inbound(this.sessionId, message);
      this.onmessage?.(message, extra);
    };
    this.inner.onframeerror = (e) => this.onframeerror?.(e);
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(revision: string): void {
    this.inner.setProtocolVersion?.(revision);
  }
}
