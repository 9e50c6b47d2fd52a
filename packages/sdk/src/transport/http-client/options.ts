/**
 * Options of the Streamable HTTP client transport, their defaults, the reconnect delay rule, and the checks
 * made of them when a transport is built (the endpoint's scheme, the header values to mask).
 */
import { backoffDelay } from "../../_internal/backoff.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { Logger } from "../../log.ts";
import type { HttpAuthProvider } from "./auth-provider.ts";

/** How a broken SSE stream is re-opened when the server gave no `retry` value. */
export interface ReconnectOptions {
  /** First delay before a reconnect (ms). Default 1000. */
  initialDelayMs: number;
  /** Upper bound of the backoff delay (ms). Default 30000. */
  maxDelayMs: number;
  /** Each consecutive failed attempt multiplies the delay by this. Default 1.5. */
  growFactor: number;
  /**
   * Consecutive failed attempts (network error, 5xx, 409, 429) before giving up with `onerror`. An attempt
   * that gets a stream back resets the count, so a server that closes streams on purpose (polling) is
   * followed for as long as it keeps answering. Default 6.
   */
  maxRetries: number;
  /**
   * Consecutive streams that ended soon after opening without delivering anything (no message, no new
   * event id) before giving up with `onerror`. Such a server would otherwise be re-requested in a loop;
   * the waits between them back off like failures. Default 10.
   */
  maxEmptyStreams?: number;
}

/** Options of {@link StreamableHttpClientTransport}. */
export interface StreamableHttpClientOptions {
  /** Extra headers on every request (e.g. `Authorization`). Never logged, never put in error messages. */
  headers?: Record<string, string>;
  /** The fetch to use (tests, proxies, custom TLS). Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Reconnect policy for broken SSE streams; missing fields take the defaults. */
  reconnect?: Partial<ReconnectOptions>;
  /**
   * Open the standalone GET stream for server push once `notifications/initialized` has been accepted.
   * Default true. With false, call `openGetStream()` when wanted.
   */
  openGetStream?: boolean;
  /** Telemetry. Records carry the server name, never headers or payloads. */
  logger?: Logger;
  /** The server's name in errors and logs. Default: the URL's host. */
  name?: string;
  /** Largest inbound message (characters of one SSE event, or bytes of a JSON body). Default 4 MiB. */
  maxFrameBytes?: number;
  /**
   * Authorization (MCP authorization spec): supplies bearer tokens and answers 401/403 challenges. Its
   * token goes only to this endpoint. See `lazyOAuthProvider` for OAuth 2.1.
   */
  auth?: HttpAuthProvider;
  /** How long `close()` waits for the session DELETE before giving up (ms). Default 3000. */
  closeTimeoutMs?: number;
}

/** The default of {@link ReconnectOptions.maxEmptyStreams}. */
export const DEFAULT_MAX_EMPTY_STREAMS = 10;

/** The defaults of {@link ReconnectOptions}. */
export const DEFAULT_RECONNECT: ReconnectOptions = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  growFactor: 1.5,
  maxRetries: 6,
  maxEmptyStreams: DEFAULT_MAX_EMPTY_STREAMS,
};

/**
 * Bounds on a server's SSE `retry` value (ms). `retry: 0` from a server that ends every stream at once
 * would otherwise be a reconnect loop thousands of times a second; a huge one would switch push off.
 */
export const SERVER_RETRY_BOUNDS = { minMs: 250, maxMs: 60_000 } as const;

/**
 * The wait before reconnect attempt `attempt` (0-based). The server's `retry` value wins when it sent one
 * (the spec says the client MUST respect it), kept within {@link SERVER_RETRY_BOUNDS}; otherwise bounded
 * exponential backoff with "equal jitter" (half fixed, half random), so many clients dropped at once do not
 * come back in lockstep.
 */
export function reconnectDelay(
  attempt: number,
  policy: ReconnectOptions,
  serverRetryMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (serverRetryMs !== undefined) return Math.min(SERVER_RETRY_BOUNDS.maxMs, Math.max(SERVER_RETRY_BOUNDS.minMs, serverRetryMs));
  return backoffDelay(
    attempt,
    { initialDelayMs: policy.initialDelayMs, maxDelayMs: policy.maxDelayMs, factor: policy.growFactor, jitter: "equal" },
    random,
  );
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;

/** Refuse an endpoint that is not http(s), or plain http:// anywhere but loopback (a token would travel in clear). */
export function checkEndpointUrl(url: URL, name: string): void {
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new AgentdError("E_CONFIG_INVALID", `MCP server '${name}': the URL must be http(s), not ${url.protocol}`);
  if (url.protocol === "http:" && !LOOPBACK.test(url.hostname))
    throw new AgentdError("E_CONFIG_INVALID", `MCP server '${name}': plain http:// is allowed only on loopback; use https://`);
}

/** What error details must never show: whole header values, and long words of them (the token of "Bearer <token>"). */
export function headerSecrets(headers: Record<string, string>): string[] {
  return Object.values(headers).flatMap((v) => [v, ...v.split(/\s+/).filter((w) => w.length >= 8)]);
}
