/**
 * What the Streamable HTTP transport reads from a message before it POSTs it: whether it is a request (its
 * answer is then awaited on the POST), whether it is `initialize` (which starts a new session), and — for a
 * `notifications/cancelled` — which request it gives up on, so that request's POST or stream is dropped.
 */
import type { JsonRpcMessage, RequestId } from "../../wire/jsonrpc.ts";

/** What the transport needs to know of an outgoing message. */
export interface Outgoing {
  method: unknown;
  /** Set for a request (a method and an id): its answer is awaited. */
  requestId: RequestId | undefined;
  isInitialize: boolean;
}

/** Classify an outgoing message: a request (with its id), `initialize`, or a notification or response. */
export function outgoing(message: JsonRpcMessage): Outgoing {
  const m = message as { method?: unknown; id?: unknown };
  const requestId = typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number") ? m.id : undefined;
  return { method: m.method, requestId, isInitialize: requestId !== undefined && m.method === "initialize" };
}

/** The request a `notifications/cancelled` names, if its `requestId` is a valid id. */
export function cancelledRequestId(message: JsonRpcMessage): RequestId | undefined {
  const params = (message as { params?: { requestId?: unknown } }).params;
  const id = typeof params === "object" && params !== null ? params.requestId : undefined;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}
