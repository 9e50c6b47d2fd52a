/**
 * Settings every dialect shares: where the model lives, how to reach it, and how hard to try.
 */
import { BODY_LIMITS, type Logger } from "@agentd/sdk/model";

/** The `fetch` shape the adapters call; inject one to test or to route through a proxy. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Transport settings shared by every adapter. */
export interface ProviderSettings {
  /** The model name sent to the provider (`gpt-4o-mini`, `claude-sonnet-4-5`, `gemini-2.5-flash`, `qwen3`). */
  model: string;
  /** Base URL of the API; each dialect has its own default (openai-compatible has none). */
  baseURL?: string;
  /** The API key. Sent only in the dialect's auth header; never logged, never in an error message. */
  apiKey?: string;
  /**
   * Where the key came from, or that none was set ("the API key came from OPENAI_API_KEY"): added to the
   * error of a 401 or 403, so the person knows which variable to fix. Never the key itself.
   */
  apiKeyHint?: string;
  /** Extra request headers (a gateway's routing header, an organisation id …). */
  headers?: Record<string, string>;
  /** The fetch to use; defaults to the global one. */
  fetch?: FetchFunction;
  /** Retries after the first attempt for transient failures (408/409/429/5xx, connection resets). Default 2. */
  maxRetries?: number;
  /** First backoff ceiling in ms; doubles per retry, full jitter. Default 500. */
  retryDelayMs?: number;
  /** Cap on any single wait between attempts, `Retry-After` included. Default 30 000. */
  maxRetryDelayMs?: number;
  /**
   * Per-request timeout in ms (default 120 000): the whole response for `generate`; for `stream`, the wait
   * for the response headers and for each next chunk, so a long healthy stream is never cut off.
   */
  timeoutMs?: number;
  /**
   * Most bytes read of one answer (default 64 MiB): the JSON body, or all the events of one streamed answer
   * together. Past it the read stops, the connection is closed and the call fails (`E_UPSTREAM`, naming the
   * endpoint and the limit). Raise it for answers with very long reasoning.
   */
  maxResponseBytes?: number;
  /** Telemetry for retries (`model.retry`). Fields carry status and timing only. */
  logger?: Logger;
  /** Randomness for backoff jitter; tests pass a fixed one. */
  random?: () => number;
}

/** The resolved transport settings the HTTP layer works with. */
export interface HttpSettings {
  provider: string;
  /** The endpoint as errors name it: the base URL without credentials or query (`model endpoint URL: …`). */
  endpoint?: string;
  /** Said beside a 401/403 (see `ProviderSettings.apiKeyHint`). */
  apiKeyHint?: string;
  fetch: FetchFunction;
  maxRetries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  timeoutMs: number;
  maxResponseBytes: number;
  logger?: Logger;
  random: () => number;
  /** Strings that must never appear in an error message (the API key). */
  secrets: string[];
}

/** Fill in defaults. `defaultBaseURL` is the dialect's own endpoint when the settings name none. */
export function resolveHttpSettings(provider: string, s: ProviderSettings, defaultBaseURL?: string): HttpSettings {
  const base = s.baseURL ?? defaultBaseURL;
  return {
    provider,
    endpoint: base ? shownEndpoint(base) : undefined,
    apiKeyHint: s.apiKeyHint || undefined,
    fetch: s.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    maxRetries: Math.max(0, s.maxRetries ?? 2),
    retryDelayMs: s.retryDelayMs ?? 500,
    maxRetryDelayMs: s.maxRetryDelayMs ?? 30_000,
    timeoutMs: s.timeoutMs ?? 120_000,
    maxResponseBytes: s.maxResponseBytes ?? BODY_LIMITS.model,
    logger: s.logger,
    random: s.random ?? Math.random,
    secrets: secretsOf(s),
  };
}

/** The key, and the values of credential-like extra headers (a gateway token passed via `headers`). */
function secretsOf(s: ProviderSettings): string[] {
  const out = s.apiKey ? [s.apiKey] : [];
  for (const [name, value] of Object.entries(s.headers ?? {}))
    if (/auth|key|token|secret|cookie/i.test(name) && value.length >= 8) out.push(value.replace(/^Bearer\s+/i, ""));
  return out;
}

/** A base URL as an error may show it: no user info, no query (either may hold a credential). */
export function shownEndpoint(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.href.replace(/\/$/, "");
  } catch {
    return url;
  }
}

/** Join a base URL and a path without doubling or dropping the slash. */
export const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
