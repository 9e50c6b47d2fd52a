/**
 * The bearer half of authentication: configured tokens (compared in constant time) and OAuth access tokens
 * (JWTs verified locally, opaque tokens introspected), each refusal a 401 with an RFC 6750 / RFC 9728
 * `WWW-Authenticate` challenge naming the protected-resource metadata.
 *
 * A module of its own because only a server configured with bearer tokens or OAuth issuers uses it:
 * `createStreamableHttpServer` imports it (and with it the JWT, introspection and issuer-link modules) at
 * creation when one is, so a server without them does not keep them in memory (bench/NOTES.md, idle sessions).
 */
import { nodeCrypto } from "../../_internal/node-builtins.ts";
import type { Permission } from "../types.ts";
import type { AuthInfo, AuthOutcome } from "./auth.ts";
import { createIntrospector } from "./introspection.ts";
import { createJwtVerifier, type JwtIssuerOptions, type JwtOutcome, looksLikeJwt } from "./jwt-verifier.ts";
import { scopeFor } from "./oauth-grant.ts";
import { jsonRpcHttpError } from "./responses.ts";

/** What the bearer check needs to know. */
export interface BearerSettings {
  bearerTokens: readonly string[];
  /** Per token (same order): the principal name and role; default `bearer#N`, no role. */
  bearerPrincipals?: readonly { name: string; role?: "operator"; permissions?: readonly Permission[] }[];
  /** Issuers whose OAuth access tokens are accepted (audience: `resource`). */
  jwtIssuers: readonly JwtIssuerOptions[];
  /** The public URL of the MCP endpoint (the `resource`). */
  resource: string;
  /** The URL of the RFC 9728 document, named in every challenge. */
  metadataUrl: string;
}

/** The bearer check of one server. */
export interface BearerCheck {
  /**
   * The outcome of a request's `Authorization` header; `tls` is the principal its client certificate already
   * established (which then names the caller, the token saying what it may do).
   */
  check(header: string | null, tls: AuthInfo | undefined): AuthOutcome | Promise<AuthOutcome>;
  /** The scope that would grant `permission` to a principal of `issuer` (for a 403 challenge), if any. */
  scopeFor(issuer: string, permission: Permission): string | undefined;
}

/** See {@link createBearerCheck}; the type of what the server loads. */
export type CreateBearerCheck = typeof createBearerCheck;

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** Build the bearer check of a server with bearer tokens or OAuth issuers. */
export function createBearerCheck(settings: BearerSettings): BearerCheck {
  const { metadataUrl } = settings;
  const matchToken = tokenMatcher(settings.bearerTokens);
  const tokens = settings.bearerTokens.length;
  const verifyOAuth = settings.jwtIssuers.length ? createOAuthVerifier(settings.jwtIssuers, settings.resource) : undefined;
  const byIssuer = new Map(settings.jwtIssuers.map((i) => [i.issuer, i]));
  return {
    scopeFor: (issuer, permission) => scopeFor(byIssuer.get(issuer), permission),
    check(header, tls) {
      if (header === null) return { ok: false, response: unauthorized(metadataUrl) };
      const m = BEARER.exec(header);
      // A Bearer header with a malformed token is a presented-but-wrong token; another scheme presents none.
      if (!m)
        return {
          ok: false,
          response: /^bearer\s/i.test(header) ? unauthorized(metadataUrl, "invalid_token") : unauthorized(metadataUrl),
        };
      const index = tokens > 0 ? matchToken(m[1]!) : -1;
      if (index < 0 && verifyOAuth) return jwtOutcome(verifyOAuth(m[1]!), tls, metadataUrl);
      if (index < 0) return { ok: false, response: unauthorized(metadataUrl, "invalid_token") };
      // The principal names the token by its configured name or position, never by value or by a hash of it.
      const p = settings.bearerPrincipals?.[index];
      const grants = { role: p?.role, permissions: p?.permissions };
      // Under mTLS the certificate names the principal; the token still says what it may do.
      const authInfo: AuthInfo = tls ? { ...tls, ...grants } : { principal: p?.name ?? `bearer#${index}`, scheme: "bearer", ...grants };
      return { ok: true, authInfo };
    },
  };
}

/** The 401 of a request without a good bearer token, with the challenge naming the metadata document. */
function unauthorized(metadataUrl: string, error?: string): Response {
  const challenge = error ? `Bearer resource_metadata="${metadataUrl}", error="${error}"` : `Bearer resource_metadata="${metadataUrl}"`;
  return jsonRpcHttpError(401, -32000, error ? "Unauthorized: invalid bearer token" : "Unauthorized: bearer token required", {
    "www-authenticate": challenge,
  });
}

/** Which configured token a presented one is (its index, or -1), compared in constant time. */
function tokenMatcher(tokens: readonly string[]): (token: string) => number {
  if (tokens.length === 0) return () => -1;
  const { createHash, timingSafeEqual } = nodeCrypto();
  const sha256 = (s: string) => createHash("sha256").update(s).digest();
  // Hash both sides to equal lengths so timingSafeEqual applies and no length leaks.
  const digests = tokens.map(sha256);
  return (token) => {
    const d = sha256(token);
    let found = -1;
    // No early exit: every configured token is compared, whatever matches.
    for (let i = 0; i < digests.length; i++) if (timingSafeEqual(d, digests[i]!) && found < 0) found = i;
    return found;
  };
}

/** A JWT's verdict: 401 invalid_token, 403 insufficient_scope (naming the scope), or its principal. */
async function jwtOutcome(verdict: Promise<JwtOutcome>, tls: AuthInfo | undefined, metadataUrl: string): Promise<AuthOutcome> {
  const v = await verdict;
  if (v.ok) {
    const { role, permissions, issuer } = v.authInfo;
    return {
      ok: true,
      authInfo: tls ? { ...tls, role, permissions, issuer: permissions && issuer } : v.authInfo,
    };
  }
  if (v.error === "invalid_token") return { ok: false, response: unauthorized(metadataUrl, "invalid_token") };
  if (v.error === "unavailable")
    return {
      ok: false,
      response: jsonRpcHttpError(503, -32000, "Service Unavailable: the token's issuer cannot be asked now; retry", {
        "retry-after": String(v.retryAfter),
      }),
    };
  const response = jsonRpcHttpError(403, -32000, "Forbidden: the token lacks a required scope", {
    "www-authenticate": `Bearer resource_metadata="${metadataUrl}", error="insufficient_scope", scope="${v.scope ?? ""}"`,
  });
  return { ok: false, response };
}

/**
 * The OAuth token check: an issuer with `introspection` is asked (RFC 7662), the others' tokens are verified
 * as JWTs. A JWT names its issuer (`iss`); an opaque token is introspected at each introspecting issuer in
 * turn until one knows it.
 */
function createOAuthVerifier(issuers: readonly JwtIssuerOptions[], resource: string): (token: string) => Promise<JwtOutcome> {
  const local = issuers.filter((i) => !i.introspection);
  const verifyJwt = local.length ? createJwtVerifier(local, resource) : undefined;
  const introspectors = new Map(issuers.filter((i) => i.introspection).map((i) => [i.issuer, createIntrospector(i, resource)]));
  const invalid: JwtOutcome = { ok: false, error: "invalid_token" };
  return async (token) => {
    if (looksLikeJwt(token)) {
      const iss = unverifiedIssuer(token);
      const introspect = iss === undefined ? undefined : introspectors.get(iss);
      if (introspect) return introspect(token);
      if (verifyJwt && local.some((i) => i.issuer === iss)) return verifyJwt(token);
      if (introspectors.size === 0) return invalid;
    }
    let outcome: JwtOutcome = invalid;
    for (const introspect of introspectors.values()) {
      const o = await introspect(token);
      if (o.ok || o.error === "insufficient_scope") return o;
      if (o.error === "unavailable") outcome = o;
    }
    return outcome;
  };
}

/** The `iss` of a JWT, unverified (only to pick who verifies it). */
function unverifiedIssuer(token: string): string | undefined {
  try {
    const iss = (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { iss?: unknown }).iss;
    return typeof iss === "string" ? iss : undefined;
  } catch {
    return undefined;
  }
}
