/**
 * Every request `agentd serve` makes to an OAuth issuer while answering a client (OpenID / RFC 8414
 * metadata, the JWKS, RFC 7662 introspection) goes through one link per issuer. Each request, its body
 * included, gets `timeoutSeconds`; a request that fails to get an answer (timeout, refused connection)
 * marks the issuer unavailable for `unavailableSeconds`, during which its tokens are answered 503 with
 * `Retry-After` at once instead of each holding a client's request for another timeout. An issuer that
 * never answers therefore costs one timeout per `unavailableSeconds`, not one per request.
 */

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
      timeout.aborted ? "the issuer did not answer in time" : `the issuer could not be reached (${(e as Error).message})`,
      markDown(),
    );
  async function send(url: string | URL, init: RequestInit, timeout: AbortSignal): Promise<Response> {
    if (downFor() > 0) throw new IssuerUnavailableError("the issuer did not answer recently", downFor());
    // The signal also bounds reading the body: a stalled body fails `json()` when it fires.
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await fetchFn(url, { ...init, signal });
    } catch (e) {
      throw failed(timeout, e);
    }
  }
  return {
    downFor,
    markDown,
    fetch: (url, init = {}) => send(url, init, AbortSignal.timeout(timeoutMs)),
    async json(url, init = {}) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const r = await send(url, init, timeout);
      if (!r.ok) {
        await r.body?.cancel().catch(() => {});
        return { ok: false };
      }
      try {
        return { ok: true, body: await r.json() };
      } catch (e) {
        if (timeout.aborted) throw failed(timeout, e);
        throw e;
      }
    },
  };
}
