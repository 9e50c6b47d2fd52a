/**
 * Every request `agentd serve` makes to an OAuth issuer while answering a client (OpenID / RFC 8414
 * metadata, the JWKS, RFC 7662 introspection) goes through one link per issuer. Each request, its body
 * included, gets `timeoutSeconds`; a request that fails to get an answer (timeout, refused connection)
 * marks the issuer unavailable for `unavailableSeconds`, during which its tokens are answered 503 with
 * `Retry-After` at once instead of each holding a client's request for another timeout. An issuer that
 * never answers therefore costs one timeout per `unavailableSeconds`, not one per request.
 *
 * Each answer's body is also bounded in bytes (`maxResponseBytes`, default 1 MiB: metadata and key sets are
 * a few KiB) while it is read — JSON answers here, and jose's JWKS fetch gets the body read into memory
 * first — and an answer over it marks the issuer unavailable like a timeout, with a line naming the
 * endpoint and the limit. Redirects to another origin are not followed with credentials (introspection).
 */
import { BODY_LIMITS, bufferedResponse, type BodyBound, readBoundedText, shownUrl } from "../../_internal/bounded-body.ts";
import { fetchFollowingRedirects } from "../../_internal/redirects.ts";
import { AgentdError } from "../../wire/errors.ts";

/** Default bound of one request to an issuer (seconds). */
export const DEFAULT_ISSUER_TIMEOUT_SECONDS = 5;
/** Default time an issuer that did not answer is not asked again (seconds). */
export const DEFAULT_ISSUER_UNAVAILABLE_SECONDS = 10;

/** Thrown by a link when its issuer cannot be asked (down, or the request just failed). */
export class IssuerUnavailableError extends Error {
  constructor(
    message: string,
    /** Seconds until the issuer is asked again. */
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = "IssuerUnavailableError";
  }
}

/** The outbound side of one issuer. */
export interface IssuerLink {
  /** `fetch` with the timeout; throws IssuerUnavailableError while the issuer is marked down or when this request fails. */
  fetch(url: string | URL, init?: RequestInit): Promise<Response>;
  /** GET or POST and read a JSON answer, all within the timeout; `body` is undefined for a non-2xx answer. */
  json(url: string | URL, init?: RequestInit): Promise<{ ok: boolean; body?: unknown }>;
  /** Seconds until the issuer is asked again, or 0 when it may be asked now. */
  downFor(): number;
  /** Mark the issuer down (a request through another path timed out). Returns the seconds until it is asked again. */
  markDown(): number;
}

/** The link's settings (an issuer's configuration). */
export interface IssuerLinkOptions {
  timeoutSeconds?: number;
  unavailableSeconds?: number;
  /** Most bytes read of one answer (default 1 MiB). */
  maxResponseBytes?: number;
}

/** Make the link of one issuer. */
export function createIssuerLink(options: IssuerLinkOptions, fetchFn: typeof fetch = fetch): IssuerLink {
  const timeoutMs = (options.timeoutSeconds ?? DEFAULT_ISSUER_TIMEOUT_SECONDS) * 1000;
  const unavailableMs = (options.unavailableSeconds ?? DEFAULT_ISSUER_UNAVAILABLE_SECONDS) * 1000;
  let downUntil = 0;
  const downFor = () => Math.max(0, Math.ceil((downUntil - Date.now()) / 1000));
  const markDown = () => {
    downUntil = Date.now() + unavailableMs;
    return downFor();
  };
  const failed = (timeout: AbortSignal, e: unknown) =>
    new IssuerUnavailableError(
      timeout.aborted
        ? "the issuer did not answer in time"
        : AgentdError.isInstance(e)
          ? (e as Error).message
          : `the issuer could not be reached (${(e as Error).message})`,
      markDown(),
    );
  const bound = (url: string | URL): BodyBound => ({
    limit: options.maxResponseBytes ?? BODY_LIMITS.issuer,
    peer: "OAuth issuer endpoint",
    url,
  });
  async function send(url: string | URL, init: RequestInit, timeout: AbortSignal): Promise<Response> {
    if (downFor() > 0) throw new IssuerUnavailableError("the issuer did not answer recently", downFor());
    // The signal also bounds reading the body: a stalled body fails `json()` when it fires.
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await fetchFollowingRedirects(fetchFn, url, { ...init, signal }, { peer: `OAuth issuer endpoint ${shownUrl(url)}` });
    } catch (e) {
      throw failed(timeout, e);
    }
  }
  return {
    downFor,
    markDown,
    async fetch(url, init = {}) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const r = await send(url, init, timeout);
      try {
        return await bufferedResponse(r, bound(url));
      } catch (e) {
        throw failed(timeout, e);
      }
    },
    async json(url, init = {}) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const r = await send(url, init, timeout);
      if (!r.ok) {
        await r.body?.cancel().catch(() => {});
        return { ok: false };
      }
      let text: string;
      try {
        text = await readBoundedText(r, bound(url));
      } catch (e) {
        throw failed(timeout, e);
      }
      return { ok: true, body: JSON.parse(text) as unknown };
    },
  };
}
