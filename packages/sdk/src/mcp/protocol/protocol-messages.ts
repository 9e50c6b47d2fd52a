/**
 * The pure parts of a {@link Protocol}: shaping what it sends (a request's `_meta`, its send options, the
 * errors of a request that cannot go out) and reading what it receives (a progress update, a value that
 * looks like a response, a batch the revision refuses). Kept apart from the peer's state so the hot path's
 * allocation rules — no object a request does not need — are visible in one short file.
 */
import type { SendOptions } from "../../transport/types.ts";
import { AgentdError } from "../../wire/errors.ts";
import { errorResponse, ErrorCode, type JsonRpcErrorResponse } from "../../wire/jsonrpc.ts";
import type { McpCodec } from "../../wire/codec.ts";
import type { AbandonReason } from "./pending-requests.ts";
import type { Progress, ProgressToken, RequestOptions } from "./types.ts";

/** The send options of a request sent on no one's behalf (shared: a request's path allocates no options). */
const UNRELATED: SendOptions = Object.freeze({});

/** The transport's options for a request: its extra headers and the request it is sent on behalf of. */
export function requestSendOptions(options: RequestOptions): SendOptions {
  const related = options.relatedRequestId;
  if (options.headers !== undefined) return { relatedRequestId: related, headers: options.headers };
  return related !== undefined ? { relatedRequestId: related } : UNRELATED;
}

/**
 * `params` with `_meta` merged from, by rising precedence, the envelope, the params' own `_meta`, the
 * request options' `meta` and the progress token; `params` itself when that adds nothing. The caller's
 * objects are never changed: a merge is a new object, and a lone `meta` is carried as it is (transports
 * serialise or clone what they send).
 */
export function withMeta(
  params: Record<string, unknown> | undefined,
  envelope: Record<string, unknown> | undefined,
  extra: Record<string, unknown> | undefined,
  progressToken: ProgressToken | undefined,
): Record<string, unknown> | undefined {
  if (envelope === undefined && extra === undefined && progressToken === undefined) return params;
  const own = params?._meta as Record<string, unknown> | undefined;
  let meta: Record<string, unknown>;
  if (envelope === undefined && own === undefined && progressToken === undefined) {
    if (isEmpty(extra!)) return params;
    meta = extra!;
  } else {
    meta = { ...envelope, ...own, ...extra };
    if (progressToken !== undefined) meta.progressToken = progressToken;
    else if (isEmpty(meta)) return params;
  }
  return { ...params, _meta: meta };
}

function isEmpty(o: Record<string, unknown>): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return false;
  return true;
}

/** A request that cannot be sent: the connection is closed (retryable on a new one). */
export function closedError(method: string): AgentdError {
  return new AgentdError("E_CONNECTION_CLOSED", `cannot send ${method}: connection is closed`, { retryable: true });
}

/** A request whose write failed: the transport's own error, or `E_TRANSPORT` naming the method. */
export function sendError(method: string, e: unknown): unknown {
  if (AgentdError.isInstance(e)) return e;
  return new AgentdError("E_TRANSPORT", `failed to send ${method}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/** The `reason` of the `notifications/cancelled` sent for a request we gave up. */
export function abandonText(reason: AbandonReason): string {
  return reason === "aborted"
    ? "request aborted by the caller"
    : reason === "ceiling"
      ? "maximum total time exceeded"
      : "request timed out";
}

/** A `notifications/progress`'s token and the update it carries (absent fields left out). */
export function progressUpdate(params: Record<string, unknown>): { token: ProgressToken; update: Progress } {
  const { progressToken, progress, total, message } = params as unknown as { progressToken: ProgressToken } & Progress;
  const update: Progress = { progress };
  if (total !== undefined) update.total = total;
  if (message !== undefined) update.message = message;
  return { token: progressToken, update };
}

/** Whether an invalid value was meant as a response (it has a result or an error and no method). */
export function looksLikeResponse(value: unknown): boolean {
  return typeof value === "object" && value !== null && !("method" in value) && ("result" in value || "error" in value);
}

/** Batches exist only in 2025-03-26; elsewhere the whole array is one invalid request, and an empty one always is. */
export function batchRefusal(codec: McpCodec, messages: unknown[]): JsonRpcErrorResponse | undefined {
  if (!codec.batches)
    return errorResponse(
      null,
      ErrorCode.InvalidRequest,
      `Invalid request: JSON-RPC batches are not supported in protocol revision ${codec.revision}`,
    );
  if (messages.length === 0) return errorResponse(null, ErrorCode.InvalidRequest, "Invalid request: empty batch");
  return undefined;
}

/**
 * Why a notification does not reach its handlers: a method the revision does not define (`unknown`), or
 * params its codec refuses (`malformed`, the reason); undefined when it passes.
 */
export function notificationRefusal(
  codec: McpCodec,
  method: string,
  rawParams: Record<string, unknown> | undefined,
): { unknown: true; malformed?: undefined } | { malformed: string } | undefined {
  if (!codec.knowsNotification(method)) return { unknown: true };
  const failed = codec.checkNotificationParams(method, rawParams);
  return failed ? { malformed: failed.message } : undefined;
}

/** What a request still awaiting its response fails with when the connection closes: the transport's reason when it knows one. */
export function connectionClosedError(reason: Error | undefined): AgentdError {
  return reason
    ? new AgentdError("E_CONNECTION_CLOSED", reason.message, { retryable: true, cause: reason })
    : new AgentdError("E_CONNECTION_CLOSED", "connection closed before a response arrived", { retryable: true });
}
