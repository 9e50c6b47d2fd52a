/**
 * Which failures mean "the connection is gone", and which interrupted requests may be sent again on the
 * new connection. The rule (docs/failure.md, "Calls during and across an outage"):
 *
 * - read-only and idempotent methods are replayed once after any connection loss;
 * - `tools/call` is replayed once after an HTTP session loss only when it carries the run id in `_meta`
 *   (every call made through `callTool` does), because the server can then recognise a repeat;
 * - `tools/call` in flight when the connection closed (a stdio child crashed) is never replayed: it may be
 *   what crashed the server, and it may have had effects; the caller (the model) decides;
 * - a request that was never sent (the connection was already closed) is simply sent on the new connection.
 */
import { AgentdError, McpError } from "../../../wire/errors.ts";
import { ErrorCode } from "../../../wire/jsonrpc.ts";
import { RUN_ID_META_KEY } from "../../protocol/meta.ts";

/** Why a connection was given up. */
export type LossReason = "closed" | "session-expired" | "push-stream-failed";

/** Methods whose repetition cannot change server state beyond the first time. */
export const REPLAYABLE_METHODS: ReadonlySet<string> = new Set([
  "ping",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
]);

/**
 * Whether `error` says the whole connection is gone: the session expired (thrown by the HTTP transport, or
 * delivered as a -32000 response whose data names `E_SESSION_EXPIRED`) or the connection closed.
 */
export function connectionLoss(error: unknown): LossReason | undefined {
  if (AgentdError.isInstance(error)) {
    if (error.code === "E_SESSION_EXPIRED") return "session-expired";
    if (error.code === "E_CONNECTION_CLOSED") return "closed";
    return undefined;
  }
  if (McpError.isInstance(error) && error.code === ErrorCode.ConnectionClosed) {
    const code = (error.data as { code?: unknown } | undefined)?.code;
    if (code === "E_SESSION_EXPIRED") return "session-expired";
  }
  return undefined;
}

/** The protocol refuses to send on a closed connection with "cannot send …": such a request never left. */
export function neverSent(error: unknown): boolean {
  return AgentdError.isInstance(error) && error.code === "E_CONNECTION_CLOSED" && error.message.startsWith("cannot send ");
}

/** Whether `params` or the request's extra `_meta` carry the run id. */
export function carriesRunId(params: Record<string, unknown> | undefined, meta?: Record<string, unknown>): boolean {
  const inParams = (params?._meta as Record<string, unknown> | undefined)?.[RUN_ID_META_KEY];
  const inMeta = meta?.[RUN_ID_META_KEY];
  return (typeof inParams === "string" && inParams !== "") || (typeof inMeta === "string" && inMeta !== "");
}

/** Whether a request interrupted by `loss` may be sent again once the connection is back. */
export function mayReplay(method: string, runId: boolean, loss: LossReason, error: unknown): boolean {
  if (neverSent(error) || REPLAYABLE_METHODS.has(method)) return true;
  return method === "tools/call" && runId && loss !== "closed";
}

/** The error a caller gets for a request the loss interrupted and that is not sent again. */
export function interruptedError(server: string, method: string, loss: LossReason, replayed: boolean, cause: unknown): AgentdError {
  const what =
    loss === "session-expired"
      ? "the server lost the session"
      : loss === "closed"
        ? "the connection closed"
        : "the server could not be reached";
  const why = replayed
    ? "it was already replayed once"
    : method !== "tools/call"
      ? `not replayed: ${method} is not known to be safe to repeat`
      : loss === "closed"
        ? "not replayed: it may have run, or crashed the server"
        : "not replayed: it carries no run id in _meta, so a repeat could not be recognised";
  return new AgentdError("E_CONNECTION_CLOSED", `MCP server '${server}': ${method} was interrupted (${what}; ${why}); reconnecting`, {
    cause,
    retryable: true,
    data: { server, method },
  });
}
