/**
 * `agentd serve` as an OAuth resource server: JWT access tokens (RFC 9068) from configured issuers.
 *
 * Each token is checked for: a signature by a key of its issuer's JWKS (fetched over HTTPS or loopback,
 * cached; an unknown `kid` refetches, at most every 30 s, so a rotated-in key works and a rotated-away key
 * stops working), an algorithm on the allow list (never `none`, never HMAC), the issuer, the audience =
 * this server's resource URL, `exp`/`nbf` (60 s tolerance), the `typ` header (RFC 9068 §4: `at+jwt`, so an ID
 * token or another JWT signed by the same keys is not taken for an access token), and the scopes the issuer
 * requires. The principal is `jwt:ISSUER#SUB`; the operator scope (when configured) gives the operator role.
 * Metadata and JWKS requests go through the issuer's link (`issuer-link.ts`): bounded in time, and an
 * issuer that does not answer gives 503 at once for a while.
 *
 * `jose` (pinned) does the JOSE work: signature formats, JWKS caching and cooldown, claim checks and its
 * refusal of `alg: none` and `crit` headers are easy to get subtly wrong by hand. It is imported only when
 * an issuer is configured.
 */
import type { Permission } from "../types.ts";
import type { AuthInfo } from "./auth.ts";
import { createIssuerLink, DEFAULT_ISSUER_TIMEOUT_SECONDS, type IssuerLink, IssuerUnavailableError } from "./issuer-link.ts";
import { grantFor, scopesOf } from "./oauth-grant.ts";

/** One trusted issuer. */
export interface JwtIssuerOptions {
  /** The `iss` value, exactly. */
  issuer: string;
  /** Its JWKS URL. Default: `jwks_uri` of its OpenID / RFC 8414 metadata. */
  jwksUri?: string;
  /** Scopes every token must carry (all of them). Default none. */
  requiredScopes?: string[];
  /** A scope that makes the caller an operator. */
  operatorScope?: string;
  /** Allowed signature algorithms. Default RS256, ES256, PS256, EdDSA. */
  algorithms?: string[];
  /** Least time between two JWKS fetches for an unknown key id (seconds). Default 30. */
  jwksCooldownSeconds?: number;
  /**
   * What each scope allows (`{"agentd:run": ["run", "status"], "agentd:status": ["status"]}`). Set, a token
   * may do exactly what its scopes grant; unset, every valid token may run and read its status.
   */
  scopePermissions?: Record<string, Permission[]>;
  /** RFC 7662: check this issuer's tokens (opaque or not) at its introspection endpoint instead of as JWTs. */
  introspection?: IntrospectionOptions;
  /**
   * The JWT `typ` header values accepted (RFC 9068 §4), compared case-insensitively with or without the
   * `application/` prefix. Default `["at+jwt"]`.
   */
  accessTokenTypes?: string[];
  /** Bound of each request to the issuer: metadata, JWKS, introspection (seconds). Default 5. */
  timeoutSeconds?: number;
  /** After the issuer failed to answer, its tokens get 503 without asking it for this long (seconds). Default 10. */
  unavailableSeconds?: number;
}

/** How to introspect an issuer's tokens (RFC 7662). */
export interface IntrospectionOptions {
  /** The endpoint. Default: `introspection_endpoint` of the issuer's OpenID / RFC 8414 metadata. */
  endpoint?: string;
  /** This resource server's client credentials at the issuer (sent as HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** An active answer is reused until the token expires, at most this long (seconds). Default 60; 0 never reuses. */
  cacheSeconds?: number;
  /** An inactive answer is reused this long (seconds). Default 5. */
  negativeCacheSeconds?: number;
}

/** The outcome of checking one token. */
export type JwtOutcome =
  | { ok: true; authInfo: AuthInfo }
  | { ok: false; error: "invalid_token" | "insufficient_scope"; scope?: string }
  /** The issuer could not be asked (down, or too slow): not the token's fault; ask again after `retryAfter` seconds. */
  | { ok: false; error: "unavailable"; retryAfter: number };

const DEFAULT_ALGS = ["RS256", "ES256", "PS256", "EdDSA"];
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** `typ` as RFC 9068 compares it: lower case, without `application/`. */
const normalizeTyp = (typ: string) => typ.toLowerCase().replace(/^application\//, "");

/** The outcome for an issuer that cannot be asked now. */
export const unavailable = (retryAfter: number): JwtOutcome => ({ ok: false, error: "unavailable", retryAfter: Math.max(1, retryAfter) });

/** Whether a bearer token looks like a JWT (three base64url parts). */
export const looksLikeJwt = (token: string) => JWT_SHAPE.test(token);

/** Build a verifier for tokens whose audience is `resource`. */
export function createJwtVerifier(
  issuers: JwtIssuerOptions[],
  resource: string,
  fetchFn: typeof fetch = fetch,
): (token: string) => Promise<JwtOutcome> {
  let jose: Promise<typeof import("jose")> | undefined;
  const keySets = new Map<string, Promise<ReturnType<typeof import("jose").createRemoteJWKSet>>>();
  const byIssuer = new Map(issuers.map((i) => [i.issuer, i]));
  const links = new Map(issuers.map((i) => [i.issuer, createIssuerLink(i, fetchFn)]));

  async function keySet(i: JwtIssuerOptions, link: IssuerLink) {
    let ks = keySets.get(i.issuer);
    if (!ks) {
      ks = (async () => {
        const { createRemoteJWKSet, customFetch } = await (jose ??= import("jose"));
        const uri = i.jwksUri ?? (await discoverJwksUri(i.issuer, link));
        return createRemoteJWKSet(new URL(uri), {
          cooldownDuration: (i.jwksCooldownSeconds ?? 30) * 1000,
          cacheMaxAge: 600_000,
          timeoutDuration: (i.timeoutSeconds ?? DEFAULT_ISSUER_TIMEOUT_SECONDS) * 1000,
          [customFetch]: (url: string, init: RequestInit) => link.fetch(url, init),
        });
      })();
      ks.catch(() => keySets.delete(i.issuer)); // a failed discovery is retried by the next request
      keySets.set(i.issuer, ks);
    }
    return ks;
  }

  return async (token) => {
    const { decodeJwt, jwtVerify } = await (jose ??= import("jose"));
    let iss: string | undefined;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return { ok: false, error: "invalid_token" };
    }
    const config = iss === undefined ? undefined : byIssuer.get(iss);
    if (!config) return { ok: false, error: "invalid_token" };
    const link = links.get(config.issuer)!;
    let payload: import("jose").JWTPayload;
    try {
      const result = await jwtVerify(token, await keySet(config, link), {
        issuer: config.issuer,
        audience: resource,
        algorithms: config.algorithms ?? DEFAULT_ALGS,
        clockTolerance: 60,
        requiredClaims: ["exp", "sub"],
      });
      const typ = result.protectedHeader.typ;
      const accepted = (config.accessTokenTypes ?? ["at+jwt"]).map(normalizeTyp);
      if (typeof typ !== "string" || !accepted.includes(normalizeTyp(typ))) return { ok: false, error: "invalid_token" };
      payload = result.payload;
    } catch (e) {
      if (e instanceof IssuerUnavailableError) return unavailable(e.retryAfterSeconds);
      // jose's own timeout (reading a JWKS body that stalls) is the issuer's failure too.
      if ((e as { code?: string }).code === "ERR_JWKS_TIMEOUT") return unavailable(link.markDown());
      return { ok: false, error: "invalid_token" };
    }
    return grantFor(config, payload.sub as string, scopesOf(payload));
  };
}

/** The `jwks_uri` of an issuer's OpenID Connect or RFC 8414 metadata. */
const discoverJwksUri = (issuer: string, link: IssuerLink) => discoverIssuerEndpoint(issuer, "jwks_uri", "jwksUri", link);

/**
 * An endpoint (`field`) of an issuer's OpenID Connect or RFC 8414 metadata; `option` names the setting that
 * overrides it. Throws IssuerUnavailableError when the issuer does not answer in time.
 */
export async function discoverIssuerEndpoint(issuer: string, field: string, option: string, link: IssuerLink): Promise<string> {
  const base = issuer.replace(/\/+$/, "");
  const origin = new URL(issuer).origin;
  const path = new URL(issuer).pathname.replace(/\/+$/, "");
  for (const url of [`${base}/.well-known/openid-configuration`, `${origin}/.well-known/oauth-authorization-server${path}`]) {
    const r = await link.json(url, { headers: { accept: "application/json" } });
    if (!r.ok) continue;
    const md = r.body as Record<string, unknown>;
    if (md && typeof md[field] === "string" && md.issuer === issuer) return md[field] as string;
  }
  throw new Error(`issuer ${issuer} publishes no metadata with a ${field}; configure ${option}`);
}
