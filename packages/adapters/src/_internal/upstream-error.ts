/**
 * Typed errors for everything that can go wrong talking to a provider. Messages name the provider and the
 * HTTP status and carry the provider's own explanation, with every secret scrubbed out of it.
 */
import { AgentdError } from "@agentd/sdk/model";

const MAX_DETAIL = 500;

/** Replace every occurrence of each secret (and anything shaped like a bearer credential) in `text`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join("[redacted]");
  return out.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, "$1[redacted]");
}

/**
 * The provider's explanation from an error body: `{error:{message}}` (OpenAI, Gemini, Anthropic),
 * `{message}` / `{detail}` (vLLM, FastAPI gateways), `{error:"…"}`, or the raw text, shortened.
 */
export function providerMessage(body: string): string {
  const text = body.trim();
  if (text === "") return "";
  try {
    const j = JSON.parse(text) as unknown;
    const pick = (o: unknown): string | undefined => {
      if (typeof o === "string") return o;
      if (!o || typeof o !== "object") return undefined;
      const r = o as Record<string, unknown>;
      const inner = r.error;
      if (inner !== undefined && inner !== null) {
        const m = pick(inner);
        const type = typeof inner === "object" ? (inner as Record<string, unknown>).type : undefined;
        if (m !== undefined) return typeof type === "string" && type !== "" ? `${type}: ${m}` : m;
      }
      for (const k of ["message", "detail", "msg"]) if (typeof r[k] === "string") return r[k] as string;
      return undefined;
    };
    const m = pick(Array.isArray(j) ? j[0] : j);
    if (m !== undefined) return m.slice(0, MAX_DETAIL);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, MAX_DETAIL);
}

/** What an error names: the provider, and (when known) the endpoint and where the API key came from. */
export interface ErrorSubject {
  provider: string;
  /** The base URL, credentials and query removed (`shownEndpoint`). */
  endpoint?: string;
  /** Said beside a 401/403: "the API key came from OPENAI_API_KEY", or that none was set. */
  apiKeyHint?: string;
}

const subjectOf = (s: string | ErrorSubject): ErrorSubject => (typeof s === "string" ? { provider: s } : s);
/** How a message names what failed: the endpoint when known (`model endpoint URL`), else the provider. */
const named = (s: ErrorSubject) => (s.endpoint ? `model endpoint ${s.endpoint}` : s.provider);

const EXCERPT = 200;

/** An HTML page (a proxy's or a web server's error page) as a short line of its text: tags out, spaces collapsed. */
export function htmlExcerpt(html: string): string {
  const text = html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
}

const isHtml = (contentType: string | undefined, body: string) =>
  /html/i.test(contentType ?? "") || /^\s*<(!doctype|html|head|body)\b/i.test(body);

/**
 * What a success answer that is not JSON says: its excerpt, and for an HTML page (a web server, a proxy's
 * page, a UI at that address) where the URL's path most likely went wrong.
 */
export function notJsonMessage(body: string, contentType: string | null): string {
  const message = `response is not JSON: ${htmlExcerpt(body)}`;
  return isHtml(contentType ?? undefined, body)
    ? `${message} (an HTML page answered where the model API was expected: check the endpoint URL's path — an OpenAI-compatible API usually ends in /v1)`
    : message;
}

/** An HTTP failure answered by the provider (or whatever answered in its place: a proxy's HTML page). */
export function httpError(
  subject: string | ErrorSubject,
  status: number,
  body: string,
  secrets: readonly string[],
  extra: { retryable: boolean; retryAfterMs?: number; contentType?: string },
): AgentdError {
  const s = subjectOf(subject);
  const html = isHtml(extra.contentType, body);
  const detail = scrub(html ? htmlExcerpt(body) : oneLine(providerMessage(body)), secrets);
  // The media type only when it is not the JSON a provider answers with: it says "this is not the API".
  const media = extra.contentType?.split(";")[0]?.trim();
  const type = media && !/json/i.test(media) ? ` (${media})` : "";
  const key = (status === 401 || status === 403) && s.apiKeyHint ? ` (${s.apiKeyHint})` : "";
  const message = `${named(s)} returned HTTP ${status}${type}${detail ? `: ${detail}` : ""}${key}`;
  const data: Record<string, unknown> = { status, provider: s.provider };
  if (extra.retryAfterMs !== undefined) data.retryAfterMs = extra.retryAfterMs;
  return new AgentdError("E_UPSTREAM", message, { retryable: extra.retryable, data });
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** A failure with no HTTP status: connection reset, malformed body, stream cut short. */
export function upstreamError(
  subject: string | ErrorSubject,
  what: string,
  secrets: readonly string[],
  extra: { retryable: boolean; cause?: unknown; status?: number },
): AgentdError {
  const s = subjectOf(subject);
  const data: Record<string, unknown> = { provider: s.provider };
  if (extra.status !== undefined) data.status = extra.status;
  return new AgentdError("E_UPSTREAM", `${named(s)}: ${scrub(what, secrets)}`, {
    retryable: extra.retryable,
    data,
    cause: extra.cause,
  });
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found (DNS lookup failed)",
  ECONNRESET: "connection reset",
  ConnectionClosed: "connection closed",
  ECONNABORTED: "connection aborted",
  EPIPE: "connection closed",
  UND_ERR_SOCKET: "connection closed",
  ETIMEDOUT: "connection timed out",
  ENETUNREACH: "network unreachable",
  EHOSTUNREACH: "host unreachable",
};

/** A connection failure in words ("connection refused"), not the runtime's sentence about it. */
export function describeNetworkError(e: unknown): string {
  const err = e as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  const code = typeof err?.code === "string" ? err.code : typeof err?.cause?.code === "string" ? err.cause.code : undefined;
  if (code && NETWORK_WORDS[code]) return NETWORK_WORDS[code];
  const message = typeof err?.message === "string" ? err.message : String(e);
  return `connection failed (${code ?? message})`;
}

/** The same error, marked final: the retries were spent (or not allowed), the caller should not loop on it. */
export function exhausted(e: AgentdError, attempts: number): AgentdError {
  const note = attempts > 1 ? ` (${attempts} attempts)` : "";
  return new AgentdError(e.code, `${e.message}${note}`, {
    retryable: false,
    data: { ...e.options.data, attempts },
    cause: e.options.cause,
  });
}

/** The caller aborted through the request's signal. */
export const abortedError = (provider: string, cause?: unknown) =>
  new AgentdError("E_ABORTED", `${provider}: request aborted by the caller`, { cause, data: { provider } });

/** The per-request timeout elapsed. Retryable in principle; the adapter does not retry it itself. */
export const timeoutError = (provider: string, timeoutMs: number) =>
  new AgentdError("E_TIMEOUT", `${provider}: no response within ${timeoutMs} ms`, {
    retryable: true,
    data: { provider, timeoutMs },
  });
