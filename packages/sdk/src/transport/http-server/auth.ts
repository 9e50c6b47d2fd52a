/**
 * Authentication of every request to the MCP endpoint: bearer tokens (constant-time) and/or the mTLS client
 * certificate. A failed bearer check answers 401 with an RFC 6750 / RFC 9728 `WWW-Authenticate` challenge
 * pointing at the protected-resource metadata (MCP authorization spec, "Protected Resource Metadata Discovery").
 */
import { nodeCrypto } from "../../_internal/node-builtins.ts";
import type { MessageExtra, Permission } from "../types.ts";
import { createIntrospector } from "./introspection.ts";
import { createJwtVerifier, type JwtIssuerOptions, type JwtOutcome, looksLikeJwt } from "./jwt-verifier.ts";
import { scopeFor } from "./oauth-grant.ts";
import type { ResourceMetadataOptions } from "./options.ts";
import { jsonRpcHttpError } from "./responses.ts";

/** Where the RFC 9728 document is served (root form; the path-suffixed form is served too). */
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** The authenticated principal of a request, or none when the endpoint is open (loopback, no auth). */
export type AuthInfo = NonNullable<MessageExtra["authInfo"]>;

/** The outcome of authenticating one request. */
export type AuthOutcome = { ok: true; authInfo: AuthInfo | undefined } | { ok: false; response: Response };

/** What the authenticator needs to know. */
export interface AuthSettings {
  bearerTokens: string[];
  /** Per token (same order): the principal name and role; default `bearer#N`, no role. */
  bearerPrincipals?: { name: string; role?: "operator"; permissions?: readonly Permission[] }[];
  mtls: boolean;
  /** Issuers whose JWT access tokens are accepted (audience: `resource`). */
  jwtIssuers?: JwtIssuerOptions[];
  /** The public URL of the MCP endpoint (the `resource`). */
  resource: string;
  resourceMetadata?: ResourceMetadataOptions;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The 401 of a request without a good bearer token, with the challenge naming the metadata document. */
function unauthorized(metadataUrl: string, error?: string): Response {
  const challenge = error ? `Bearer resource_metadata="${metadataUrl}", error="${error}"` : `Bearer resource_metadata="${metadataUrl}"`;
  return jsonRpcHttpError(401, -32000, error ? "Unauthorized: invalid bearer token" : "Unauthorized: bearer token required", {
    "www-authenticate": challenge,
  });
}

/** The RFC 9728 protected-resource metadata document of a server with bearer auth on. */
function protectedResourceMetadata(settings: AuthSettings): Record<string, unknown> {
  const md = settings.resourceMetadata;
  const jwtIssuers = settings.jwtIssuers ?? [];
  return {
    resource: md?.resource ?? settings.resource,
    authorization_servers:
      md?.authorizationServers?.length || jwtIssuers.length
        ? [...new Set([...(md?.authorizationServers ?? []), ...jwtIssuers.map((i) => i.issuer)])]
        : undefined,
    scopes_supported: md?.scopesSupported?.length ? md.scopesSupported : undefined,
    bearer_methods_supported: ["header"],
    resource_name: md?.resourceName || undefined,
  };
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

/** Build the authenticator and the metadata document for one server. */
export function createAuthenticator(settings: AuthSettings): {
  authenticate(req: Request, tlsPrincipal: string | undefined): AuthOutcome | Promise<AuthOutcome>;
  /** The RFC 9728 metadata document, or null when bearer auth is off. */
  metadata: Record<string, unknown> | null;
  metadataUrl: string;
  /** The 403 for a caller that lacks `permission` (MCP "Scope challenge handling": the scope that grants it). */
  forbid(authInfo: AuthInfo | undefined, permission: Permission): Response;
} {
  const matchToken = tokenMatcher(settings.bearerTokens);
  const tokens = settings.bearerTokens.length;
  const metadataUrl = new URL(PROTECTED_RESOURCE_PATH, settings.resource).href;
  const jwtIssuers = settings.jwtIssuers ?? [];
  const verifyOAuth = jwtIssuers.length ? createOAuthVerifier(jwtIssuers, settings.resource) : undefined;
  const byIssuer = new Map(jwtIssuers.map((i) => [i.issuer, i]));
  const bearerOn = tokens > 0 || verifyOAuth !== undefined;

  return {
    metadata: bearerOn ? protectedResourceMetadata(settings) : null,
    metadataUrl,
    forbid(authInfo, permission) {
      const scope = scopeFor(authInfo?.issuer ? byIssuer.get(authInfo.issuer) : undefined, permission);
      return jsonRpcHttpError(403, -32000, `Forbidden: this principal may not ${permission === "status" ? "read status" : permission}`, {
        "www-authenticate": `Bearer resource_metadata="${metadataUrl}", error="insufficient_scope"${scope ? `, scope="${scope}"` : ""}, error_description="the '${permission}' permission is needed"`,
      });
    },
    authenticate(req, tlsPrincipal) {
      let authInfo: AuthInfo | undefined;
      if (settings.mtls) {
        // The handshake already refused clients without a certificate from our CA; no principal here means
        // the request did not come through the TLS front at all.
        if (!tlsPrincipal) return { ok: false, response: jsonRpcHttpError(401, -32000, "Unauthorized: client certificate required") };
        authInfo = { principal: tlsPrincipal, scheme: "mtls" };
      }
      if (bearerOn) {
        const header = req.headers.get("authorization");
        if (header === null) return { ok: false, response: unauthorized(metadataUrl) };
        const m = BEARER.exec(header);
        // A Bearer header with a malformed token is a presented-but-wrong token; another scheme presents none.
        if (!m)
          return {
            ok: false,
            response: /^bearer\s/i.test(header) ? unauthorized(metadataUrl, "invalid_token") : unauthorized(metadataUrl),
          };
        const index = tokens > 0 ? matchToken(m[1]!) : -1;
        if (index < 0 && verifyOAuth) return jwtOutcome(verifyOAuth(m[1]!), authInfo, metadataUrl);
        if (index < 0) return { ok: false, response: unauthorized(metadataUrl, "invalid_token") };
        // The principal names the token by its configured name or position, never by value or by a hash of it.
        const p = settings.bearerPrincipals?.[index];
        const grants = { role: p?.role, permissions: p?.permissions };
        if (!authInfo) authInfo = { principal: p?.name ?? `bearer#${index}`, scheme: "bearer", ...grants };
        // Under mTLS the certificate names the principal; the token still says what it may do.
        else authInfo = { ...authInfo, ...grants };
      }
      return authInfo ? { ok: true, authInfo } : OPEN;
    },
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
function createOAuthVerifier(issuers: JwtIssuerOptions[], resource: string): (token: string) => Promise<JwtOutcome> {
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

/** The outcome of every request to an endpoint without auth (one object, not one per request). */
const OPEN: AuthOutcome = Object.freeze({ ok: true, authInfo: undefined });
