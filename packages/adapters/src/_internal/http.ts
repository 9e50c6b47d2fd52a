/**
 * POSTing to a provider with retries, timeouts and aborts, for a whole JSON response or an SSE stream.
 *
 * Each attempt runs under `AbortSignal.any([caller, attemptTimeout])`, so a caller abort and the timeout
 * both stop the fetch and the body read; which one fired decides the error (`E_ABORTED`, `E_TIMEOUT`).
 * Transient failures (see retry-policy.ts) are retried; a stream only until its first part was handed on.
 * Bodies are read with a byte limit (`maxResponseBytes`: the whole JSON answer, or all the events of one
 * streamed answer; an error body is read only as far as its message needs), and no redirect to another
 * origin is followed: the request carries the API key and the conversation.
 */
import {
  AgentdError,
  fetchFollowingRedirects,
  readBodyPrefix,
  readBoundedText,
  setLongTimeout,
  shownUrl,
  type BodyBound,
  type CancelTimer,
} from "@agentd/sdk/model";
import { decideRetry, isNetworkError, isRetryableStatus, parseRetryAfter } from "./retry-policy.ts";
import type { HttpSettings } from "./settings.ts";
import { readSse, type SseEvent } from "./sse.ts";
import { abortedError, describeNetworkError, exhausted, httpError, notJsonMessage, timeoutError, upstreamError } from "./upstream-error.ts";

const contentTypeOf = (res: Response): { contentType?: string } => {
  const type = res.headers.get("content-type");
  return type ? { contentType: type } : {};
};

/** One POST: URL, headers (auth included), JSON body. */
export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
}

/**
 * The signals of one attempt. `touch` re-arms the timeout (streams call it per chunk); `pause` stops it
 * while the consumer holds a part, so a slow consumer is not mistaken for a stalled provider.
 */
interface Attempt {
  signal: AbortSignal;
  touch(): void;
  pause(): void;
  timedOut(): boolean;
  dispose(): void;
}

function openAttempt(timeoutMs: number, caller?: AbortSignal): Attempt {
  const local = new AbortController();
  let fired = false;
  let cancelTimer: CancelTimer | undefined;
  // setLongTimeout: a configured timeout past 2^31-1 ms (or Infinity) must not abort after 1 ms.
  const arm = () => {
    cancelTimer?.();
    cancelTimer = setLongTimeout(() => {
      fired = true;
      local.abort(new DOMException("per-request timeout", "TimeoutError"));
    }, timeoutMs);
  };
  arm();
  return {
    signal: caller ? AbortSignal.any([caller, local.signal]) : local.signal,
    touch: () => {
      if (!fired) arm();
    },
    pause: () => cancelTimer?.(),
    timedOut: () => fired,
    dispose: () => {
      cancelTimer?.();
      // Closes the connection if the body was not read to the end (early break, error).
      if (!local.signal.aborted) local.abort(new DOMException("attempt finished", "AbortError"));
    },
  };
}

/** Wait `ms`, or reject with E_ABORTED as soon as the caller aborts. */
function sleep(ms: number, provider: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(provider, signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel();
      reject(abortedError(provider, signal?.reason));
    };
    // The wait is bounded by maxRetryDelayMs, which is configuration: it may be long.
    const cancel = setLongTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Turn whatever an attempt threw into a typed error. */
function classify(http: HttpSettings, e: unknown, attempt: Attempt, caller?: AbortSignal): AgentdError {
  if (caller?.aborted) return abortedError(http.provider, caller.reason);
  if (attempt.timedOut()) return timeoutError(http.provider, http.timeoutMs);
  if (AgentdError.isInstance(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (isNetworkError(e)) return upstreamError(http, describeNetworkError(e), http.secrets, { retryable: true, cause: e });
  return upstreamError(http, msg, http.secrets, { retryable: false, cause: e });
}

/** After a failed attempt: the error to throw, or undefined once the wait for the next attempt is over. */
async function afterFailure(http: HttpSettings, err: AgentdError, retry: number, caller?: AbortSignal): Promise<AgentdError | undefined> {
  if (err.code !== "E_UPSTREAM" || !err.retryable) return err;
  const retryAfterMs = err.options.data?.retryAfterMs as number | undefined;
  const d = decideRetry(retry, http.maxRetries, retryAfterMs, http.retryDelayMs, http.maxRetryDelayMs, http.random);
  if (!d.retry) {
    if (d.reason === "exhausted") return exhausted(err, retry + 1);
    // The server asked for a longer pause than we wait in-line: report it and let the caller decide.
    return new AgentdError(err.code, `${err.message} (asked to retry after ${Math.ceil((retryAfterMs ?? 0) / 1000)} s)`, err.options);
  }
  http.logger?.warn("model.retry", {
    provider: http.provider,
    retry: retry + 1,
    delayMs: d.delayMs,
    status: err.options.data?.status,
    // What went wrong, without the endpoint the final error names once ("connection refused", "returned HTTP 503").
    reason: http.endpoint ? err.message.replace(`model endpoint ${http.endpoint}`, "").replace(/^:?\s*/, "") : err.message,
  });
  await sleep(d.delayMs, http.provider, caller);
  return undefined;
}

/** The bound of one answer: `maxResponseBytes`, named by the request's endpoint. */
export const answerBound = (http: HttpSettings, url: string): BodyBound => ({
  limit: http.maxResponseBytes,
  peer: "model endpoint",
  url,
  hint: "raise model.maxResponseBytes if the answer is meant to be this long",
});

async function send(http: HttpSettings, req: PostRequest, attempt: Attempt): Promise<Response> {
  const init = {
    method: "POST",
    headers: { "content-type": "application/json", ...req.headers },
    body: JSON.stringify(req.body),
    signal: attempt.signal,
  };
  const res = await fetchFollowingRedirects(http.fetch, req.url, init, { peer: `model endpoint ${shownUrl(req.url)}` });
  if (res.ok) return res;
  const text = await readBodyPrefix(res);
  const hint = res.headers.get("x-should-retry");
  const retryable = hint === "true" ? true : hint === "false" ? false : isRetryableStatus(res.status);
  return Promise.reject(
    httpError(http, res.status, text, http.secrets, { retryable, retryAfterMs: parseRetryAfter(res.headers), ...contentTypeOf(res) }),
  );
}

/** POST and parse a JSON response, retrying transient failures. */
export async function postJson(http: HttpSettings, req: PostRequest): Promise<unknown> {
  if (req.signal?.aborted) throw abortedError(http.provider, req.signal.reason);
  for (let retry = 0; ; retry++) {
    const attempt = openAttempt(http.timeoutMs, req.signal);
    try {
      const res = await send(http, req, attempt);
      const text = await readBoundedText(res, answerBound(http, req.url));
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw upstreamError(http, notJsonMessage(text, res.headers.get("content-type")), http.secrets, {
          retryable: false,
          status: res.status,
        });
      }
    } catch (e) {
      const final = await afterFailure(http, classify(http, e, attempt, req.signal), retry, req.signal);
      if (final) throw final;
    } finally {
      attempt.dispose();
    }
  }
}

/**
 * POST and stream: `decode` turns the SSE events of one attempt into parts. A failure before the first
 * part is retried like any other; after it, the error goes to the consumer (parts cannot be taken back).
 */
export async function* postStream<P>(
  http: HttpSettings,
  req: PostRequest,
  decode: (events: AsyncIterable<SseEvent>) => AsyncIterable<P>,
): AsyncGenerator<P> {
  if (req.signal?.aborted) throw abortedError(http.provider, req.signal.reason);
  for (let retry = 0; ; retry++) {
    const attempt = openAttempt(http.timeoutMs, req.signal);
    let started = false;
    try {
      const res = await send(http, req, attempt);
      attempt.touch();
      if (!res.body) throw upstreamError(http, "response has no body", http.secrets, { retryable: true });
      for await (const part of decode(readSse(res.body, attempt.touch, answerBound(http, req.url)))) {
        started = true;
        attempt.pause();
        yield part;
        attempt.touch();
      }
      return;
    } catch (e) {
      const err = classify(http, e, attempt, req.signal);
      if (started) throw err;
      const final = await afterFailure(http, err, retry, req.signal);
      if (final) throw final;
    } finally {
      attempt.dispose();
    }
  }
}
