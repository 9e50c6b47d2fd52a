/**
 * RFC 7662 token introspection for `agentd serve`: an issuer configured with `introspection` has its
 * tokens (opaque, or JWTs it would rather vouch for itself) checked at its introspection endpoint, with
 * this resource server's client credentials (HTTP Basic, RFC 7662 §2.1).
 *
 * A token is accepted only if the answer is `active`, not expired, from the issuer (`iss`, when given),
 * an access token (`token_type`, when given, is Bearer), and its `aud` names this resource: an answer
 * without an audience cannot show the token was meant for us. Answers are cached by the token's SHA-256:
 * an active one until the token expires and at most `cacheSeconds` (revocation takes effect within that),
 * an inactive one for `negativeCacheSeconds`; a failed call to the endpoint is not cached, but an endpoint
 * that does not answer in time marks the issuer unavailable for a while (`issuer-link.ts`): its tokens then
 * get 503 at once.
 */
import { nodeCrypto } from "../../_internal/node-builtins.ts";
import { createIssuerLink, IssuerUnavailableError } from "./issuer-link.ts";
import { discoverIssuerEndpoint, type JwtIssuerOptions, type JwtOutcome, unavailable } from "./jwt-verifier.ts";
import { grantFor, scopesOf } from "./oauth-grant.ts";

/** Cached answers at most (the oldest is dropped first). */
const MAX_CACHED = 10_000;

interface Cached {
  outcome: JwtOutcome;
  until: number;
}

/** Build the introspector of one issuer for tokens whose audience must be `resource`. */
export function createIntrospector(
  issuer: JwtIssuerOptions,
  resource: string,
  fetchFn: typeof fetch = fetch,
): (token: string) => Promise<JwtOutcome> {
  const options = issuer.introspection!;
  const cacheMs = (options.cacheSeconds ?? 60) * 1000;
  const negativeMs = (options.negativeCacheSeconds ?? 5) * 1000;
  const basic = `Basic ${btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`)}`;
  const cache = new Map<string, Cached>();
  const { createHash } = nodeCrypto();
  const link = createIssuerLink(issuer, fetchFn);
  let endpoint: Promise<string> | undefined;

  const remember = (key: string, outcome: JwtOutcome, until: number) => {
    if (until <= Date.now()) return;
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, { outcome, until });
  };

  async function ask(token: string): Promise<{ outcome: JwtOutcome; until: number } | undefined> {
    const url = await (endpoint ??= (
      options.endpoint
        ? Promise.resolve(options.endpoint)
        : discoverIssuerEndpoint(issuer.issuer, "introspection_endpoint", "introspection.endpoint", link)
    ).catch((e) => {
      endpoint = undefined; // retried by the next request
      throw e;
    }));
    const r = await link.json(url, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }),
    });
    if (!r.ok || !r.body || typeof r.body !== "object") return undefined;
    const answer = r.body as Record<string, unknown>;
    const now = Date.now();
    const refused = { outcome: { ok: false, error: "invalid_token" } as JwtOutcome, until: now + negativeMs };
    if (answer.active !== true) return refused;
    const exp = typeof answer.exp === "number" ? answer.exp * 1000 : undefined;
    if (exp !== undefined && exp <= now) return refused;
    if (answer.iss !== undefined && answer.iss !== issuer.issuer) return refused;
    if (typeof answer.token_type === "string" && answer.token_type.toLowerCase() !== "bearer") return refused;
    const aud = Array.isArray(answer.aud) ? answer.aud : [answer.aud];
    if (!aud.includes(resource)) return refused;
    const sub = typeof answer.sub === "string" ? answer.sub : typeof answer.client_id === "string" ? answer.client_id : undefined;
    if (!sub) return refused;
    return { outcome: grantFor(issuer, sub, scopesOf(answer)), until: Math.min(now + cacheMs, exp ?? Infinity) };
  }

  return async (token) => {
    const key = createHash("sha256").update(token).digest("base64url");
    const hit = cache.get(key);
    if (hit && hit.until > Date.now()) return hit.outcome;
    if (hit) cache.delete(key);
    let answer: Awaited<ReturnType<typeof ask>>;
    try {
      answer = await ask(token);
    } catch (e) {
      if (e instanceof IssuerUnavailableError) return unavailable(e.retryAfterSeconds);
      answer = undefined;
    }
    if (!answer) return unavailable(1);
    remember(key, answer.outcome, answer.until);
    return answer.outcome;
  };
}
