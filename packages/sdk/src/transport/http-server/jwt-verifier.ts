/**
 * `agentd serve` as an OAuth resource server: JWT access tokens (RFC 9068) from configured issuers.
 *
 * Each token is checked for: a signature by a key of its issuer's JWKS (fetched over HTTPS or loopback,
 * cached; an unknown `kid` refetches, at most every 30 s, so a rotated-in key works and a rotated-away key
 * stops working), an algorithm on the allow list (never `none`, never HMAC), the issuer, the audience =
 * this server's resource URL, `exp`/`nbf` (60 s tolerance), and the scopes the issuer requires. The
 * principal is `jwt:ISSUER#SUB`; the operator scope (when configured) gives the operator role.
 *
 * `jose` (pinned) does the JOSE work: signature formats, JWKS caching and cooldown, claim checks and its
 * refusal of `alg: none` and `crit` headers are easy to get subtly wrong by hand. It is imported only when
 * an issuer is configured.
 */
import type { Permission } from "../types.ts";
import type { AuthInfo } from "./auth.ts";
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
  /** The issuer could not be asked (introspection endpoint down): not the token's fault. */
  | { ok: false; error: "unavailable" };

const DEFAULT_ALGS = ["RS256", "ES256", "PS256", "EdDSA"];
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a bearer token looks like a JWT (three base64url parts). */
export const looksLikeJwt = (token: string) => JWT_SHAPE.test(token);

/** Build a verifier for tokens whose audience is `resource`. */
export function createJwtVerifier(issuers: JwtIssuerOptions[], resource: string, fetchFn: typeof fetch = fetch): (token: string) => Promise<JwtOutcome> {
  let jose: Promise<typeof import("jose")> | undefined;
  const keySets = new Map<string, Promise<ReturnType<typeof import("jose").createRemoteJWKSet>>>();
  const byIssuer = new Map(issuers.map((i) => [i.issuer, i]));

  async function keySet(i: JwtIssuerOptions) {
    let ks = keySets.get(i.issuer);
    if (!ks) {
      ks = (async () => {
        const { createRemoteJWKSet } = await (jose ??= import("jose"));
        const uri = i.jwksUri ?? (await discoverJwksUri(i.issuer, fetchFn));
        return createRemoteJWKSet(new URL(uri), { cooldownDuration: (i.jwksCooldownSeconds ?? 30) * 1000, cacheMaxAge: 600_000 });
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
    let payload: import("jose").JWTPayload;
    try {
      const result = await jwtVerify(token, await keySet(config), {
        issuer: config.issuer,
        audience: resource,
        algorithms: config.algorithms ?? DEFAULT_ALGS,
        clockTolerance: 60,
        requiredClaims: ["exp", "sub"],
      });
      payload = result.payload;
    } catch {
      return { ok: false, error: "invalid_token" };
    }
    return grantFor(config, payload.sub as string, scopesOf(payload));
  };
}

/** The `jwks_uri` of an issuer's OpenID Connect or RFC 8414 metadata. */
const discoverJwksUri = (issuer: string, fetchFn: typeof fetch) => discoverIssuerEndpoint(issuer, "jwks_uri", "jwksUri", fetchFn);

/** An endpoint (`field`) of an issuer's OpenID Connect or RFC 8414 metadata; `option` names the setting that overrides it. */
export async function discoverIssuerEndpoint(issuer: string, field: string, option: string, fetchFn: typeof fetch): Promise<string> {
  const base = issuer.replace(/\/+$/, "");
  const origin = new URL(issuer).origin;
  const path = new URL(issuer).pathname.replace(/\/+$/, "");
  for (const url of [`${base}/.well-known/openid-configuration`, `${origin}/.well-known/oauth-authorization-server${path}`]) {
    const r = await fetchFn(url, { headers: { accept: "application/json" } });
    if (!r.ok) {
      await r.body?.cancel().catch(() => {});
      continue;
    }
    const md = (await r.json()) as Record<string, unknown>;
    if (typeof md[field] === "string" && md.issuer === issuer) return md[field] as string;
  }
  throw new Error(`issuer ${issuer} publishes no metadata with a ${field}; configure ${option}`);
}
