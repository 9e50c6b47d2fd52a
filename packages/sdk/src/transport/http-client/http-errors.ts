/**
 * Turning HTTP failures of an MCP endpoint into local errors a caller can act on: credentials rejected,
 * session expired, or a plain transport failure. Messages name the server, never a header value.
 */
import { readBodyPrefix } from "../../_internal/bounded-body.ts";
import { AgentdError } from "../../wire/errors.ts";

const DETAIL_BYTES = 2048;
const DETAIL_CHARS = 200;

/** The media type of a Content-Type header, lower-cased, without parameters. */
export const mediaType = (contentType: string | null): string => (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();

/**
 * A short, safe description of an error body: the JSON-RPC error message if there is one, else the start of
 * the text. Reads at most 2 KiB, and masks any configured header value the server may have echoed.
 */
export async function readErrorDetail(response: Response, secrets: readonly string[]): Promise<string | undefined> {
  const text = await readBodyPrefix(response, DETAIL_BYTES);
  if (text === "") return undefined;
  let detail = text.trim();
  try {
    const body = JSON.parse(detail) as { error?: { message?: unknown } };
    if (typeof body?.error?.message === "string") detail = body.error.message;
  } catch {
    // Not JSON (or cut short): keep the text.
  }
  for (const s of secrets) if (s.length >= 4) detail = detail.split(s).join("[redacted]");
  detail = detail.replace(/\s+/g, " ");
  if (detail === "") return undefined;
  return detail.length > DETAIL_CHARS ? `${detail.slice(0, DETAIL_CHARS)}…` : detail;
}

/** 401/403: the server refused our credentials. The body is not quoted (it may echo the token). */
export function unauthorizedError(name: string, status: number): AgentdError {
  const what = status === 401 ? "rejected the credentials" : "refused access with the credentials given";
  return new AgentdError(
    "E_UNAUTHORIZED",
    `MCP server '${name}' ${what} (HTTP ${status}); check the Authorization header (or token) configured for it`,
    { data: { server: name, status } },
  );
}

/**
 * Whether a failed request means the server no longer knows our session. The spec's signal is 404 on a
 * request that carried `Mcp-Session-Id`. Servers built from the official SDK's examples (server-everything
 * among them) answer an unknown session with 400 "No valid session ID provided" instead, so a 400 whose
 * error names the session counts too.
 */
export function isSessionLoss(status: number, sessionSent: string | undefined, detail: string | undefined): boolean {
  if (sessionSent === undefined) return false;
  if (status === 404) return true;
  return status === 400 && detail !== undefined && /session/i.test(detail);
}

/** The session is gone: the MCP client layer must re-initialize (and re-subscribe, and retry). */
export function sessionExpiredError(name: string, status: number, detail?: string): AgentdError {
  const why = detail ? `: ${detail}` : "";
  return new AgentdError(
    "E_SESSION_EXPIRED",
    `MCP server '${name}' no longer knows this session (HTTP ${status}${why}); re-initialize to start a new one`,
    { retryable: true, data: { server: name, status } },
  );
}

/**
 * Any other HTTP failure. 408, 409 (the SDK server's "stream already has an active connection" while it has
 * not yet noticed the old one died), 429 and 5xx are marked retryable.
 */
export function httpError(name: string, httpMethod: string, status: number, detail: string | undefined): AgentdError {
  const why = detail ? `: ${detail}` : "";
  return new AgentdError("E_TRANSPORT", `MCP server '${name}' answered ${httpMethod} with HTTP ${status}${why}`, {
    retryable: status === 408 || status === 409 || status === 429 || status >= 500,
    data: { server: name, status },
  });
}

/** fetch itself failed (connection refused, reset, DNS). */
export function networkError(name: string, httpMethod: string, cause: unknown): AgentdError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new AgentdError("E_TRANSPORT", `MCP server '${name}' could not be reached (${httpMethod}): ${why}`, {
    cause,
    retryable: true,
    data: { server: name },
  });
}
