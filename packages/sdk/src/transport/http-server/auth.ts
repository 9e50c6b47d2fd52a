/**
 * Authentication of every request to the MCP endpoint: the mTLS client certificate and/or a bearer token.
 * The bearer check itself (configured tokens, JWTs, introspection) is `bearer-auth.ts`, loaded by the server
 * only when configured and handed in here; this module is what every server needs: the open endpoint's
 * answer, the certificate's principal, the RFC 9728 metadata document (MCP authorization spec, "Protected
 * Resource Metadata Discovery") and the 403 of a missing permission.
 */
import type { MessageExtra, Permission } from "../types.ts";
import type { CreateBearerCheck } from "./bearer-auth.ts";
import type { JwtIssuerOptions } from "./jwt-verifier.ts";
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
  /** The bearer check's builder (`bearer-auth.ts`), loaded by the server: needed with bearer tokens or issuers. */
  bearer?: CreateBearerCheck;
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

/** Build the authenticator and the metadata document for one server. */
export function createAuthenticator(settings: AuthSettings): {
  authenticate(req: Request, tlsPrincipal: string | undefined): AuthOutcome | Promise<AuthOutcome>;
  /** The RFC 9728 metadata document, or null when bearer auth is off. */
  metadata: Record<string, unknown> | null;
  metadataUrl: string;
  /** The 403 for a caller that lacks `permission` (MCP "Scope challenge handling": the scope that grants it). */
  forbid(authInfo: AuthInfo | undefined, permission: Permission): Response;
} {
  const metadataUrl = new URL(PROTECTED_RESOURCE_PATH, settings.resource).href;
  const jwtIssuers = settings.jwtIssuers ?? [];
  const bearerOn = settings.bearerTokens.length > 0 || jwtIssuers.length > 0;
  if (bearerOn && !settings.bearer) throw new Error("createAuthenticator: bearer tokens or issuers need the loaded bearer check");
  const bearer = bearerOn
    ? settings.bearer?.({
        bearerTokens: settings.bearerTokens,
        bearerPrincipals: settings.bearerPrincipals,
        jwtIssuers,
        resource: settings.resource,
        metadataUrl,
      })
    : undefined;

  return {
    metadata: bearerOn ? protectedResourceMetadata(settings) : null,
    metadataUrl,
    forbid(authInfo, permission) {
      const scope = authInfo?.issuer && bearer ? bearer.scopeFor(authInfo.issuer, permission) : undefined;
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
      if (bearer) return bearer.check(req.headers.get("authorization"), authInfo);
      return authInfo ? { ok: true, authInfo } : OPEN;
    },
  };
}

/** The outcome of every request to an endpoint without auth (one object, not one per request). */
const OPEN: AuthOutcome = Object.freeze({ ok: true, authInfo: undefined });
