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

/** An HTTP failure answered by the provider. */
export function httpError(
  provider: string,
  status: number,
  body: string,
  secrets: readonly string[],
  extra: { retryable: boolean; retryAfterMs?: number },
): AgentdError {
  const detail = scrub(providerMessage(body), secrets);
  const message = `${provider} returned HTTP ${status}${detail ? `: ${detail}` : ""}`;
  const data: Record<string, unknown> = { status, provider };
  if (extra.retryAfterMs !== undefined) data.retryAfterMs = extra.retryAfterMs;
  return new AgentdError("E_UPSTREAM", message, { retryable: extra.retryable, data });
}

/** A failure with no HTTP status: connection reset, malformed body, stream cut short. */
export function upstreamError(
  provider: string,
  what: string,
  secrets: readonly string[],
  extra: { retryable: boolean; cause?: unknown; status?: number },
): AgentdError {
  const data: Record<string, unknown> = { provider };
  if (extra.status !== undefined) data.status = extra.status;
  return new AgentdError("E_UPSTREAM", `${provider}: ${scrub(what, secrets)}`, {
    retryable: extra.retryable,
    data,
    cause: extra.cause,
  });
}

/** The same error, marked final: the retries were spent (or not allowed), the caller should not loop on it. */
export function exhausted(e: AgentdError, attempts: number): AgentdError {
  const note = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
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
