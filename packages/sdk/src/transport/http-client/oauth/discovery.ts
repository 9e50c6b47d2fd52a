/**
 * Finding out how to get a token for an MCP server (MCP authorization spec, 2025-06-18 and 2025-11-25
 * "Authorization Server Discovery"; 2025-03-26 "Server Metadata Discovery" as the fallback):
 *
 * 1. Protected-resource metadata (RFC 9728): the `resource_metadata` URL of the 401's `WWW-Authenticate`,
 *    else the path-inserted well-known location (`/.well-known/oauth-protected-resource/<path>`), else the
 *    root one. It names the authorization server(s) and, maybe, `scopes_supported`.
 * 2. Authorization-server metadata of the first server named: for an issuer with a path, RFC 8414 path
 *    insertion, OpenID Connect path insertion, then OpenID Connect path appending; without a path, RFC 8414
 *    then OpenID Connect.
 * 3. No protected-resource metadata (a 2025-03-26 server): the MCP server's origin is the authorization
 *    base URL; its RFC 8414 metadata, else the default endpoints `/authorize`, `/token`, `/register`.
 *
 * Ours, not oauth4webapi's discovery (the rest of the client makes its requests with oauth4webapi): its
 * `discoveryRequest` builds two of the three authorization-server locations above (no OpenID Connect path
 * insertion) and none of the protected-resource fallbacks, and follows no redirect; its processing wants the
 * metadata's `issuer` identical to the one asked for, and a protected-resource `resource` identical to the URL
 * asked for. The MCP fallbacks need otherwise, as the official conformance scenarios pin: 2025-03-26 metadata at
 * the MCP server's origin names its own issuer (`auth/2025-03-26-oauth-metadata-backcompat`: `<origin>/oauth`);
 * a root protected-resource document names the origin for an endpoint at `/mcp` (`auth/metadata-var2`). And
 * agentd has always taken metadata without an `issuer`, or whose issuer differs by a trailing slash only.
 */
import { type AuthServerMetadata, authError, fetchMetadata, requireSecureUrl, type ResourceMetadata } from "./metadata.ts";

/** What discovery found for one MCP server. */
export interface Discovery {
  /** The RFC 8707 `resource` value: the protected resource's identifier. */
  resource: string;
  /** The authorization server's identifier (token store key for its client registration). */
  issuer: string;
  metadata: AuthServerMetadata;
  /** `scopes_supported` of the protected-resource metadata, when it had one. */
  resourceScopes?: string[];
}

/** The canonical URI of an MCP endpoint (RFC 8707 §2; MCP "Canonical Server URI"): no fragment, no query. */
export function canonicalResource(url: URL): string {
  const u = new URL(url.href);
  u.hash = "";
  u.search = "";
  const s = u.href;
  return u.pathname === "/" ? s.replace(/\/$/, "") : s;
}

const trimSlash = (p: string) => p.replace(/\/+$/, "");

/** Well-known locations of protected-resource metadata for `server`, most specific first. */
export function resourceMetadataUrls(server: URL, fromChallenge?: string): URL[] {
  const urls: URL[] = [];
  if (fromChallenge) urls.push(new URL(fromChallenge, server));
  const path = trimSlash(server.pathname);
  if (path !== "") urls.push(new URL(`/.well-known/oauth-protected-resource${path}`, server.origin));
  urls.push(new URL("/.well-known/oauth-protected-resource", server.origin));
  return urls;
}

/** Well-known locations of authorization-server metadata for `issuer`, in the spec's order. */
export function authServerMetadataUrls(issuer: URL): URL[] {
  const path = trimSlash(issuer.pathname);
  if (path === "")
    return [new URL("/.well-known/oauth-authorization-server", issuer.origin), new URL("/.well-known/openid-configuration", issuer.origin)];
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
  ];
}

/**
 * A protected-resource metadata `resource` must identify this server: same origin, and the server's path
 * within it. Anything else would have us obtain (and send) a token meant for another resource.
 */
function checkResource(declared: string, server: URL, name: string): string {
  let r: URL;
  try {
    r = new URL(declared);
  } catch {
    throw authError(name, `protected-resource metadata names resource '${declared}', which is not a URL`);
  }
  const within = r.origin === server.origin && `${trimSlash(server.pathname)}/`.startsWith(`${trimSlash(r.pathname)}/`);
  if (!within)
    throw authError(name, `protected-resource metadata names resource ${r.href}, not this server (${server.href}); refusing to authorize`);
  return declared;
}

/** Run discovery for the MCP endpoint `server`. */
export async function discover(
  fetchFn: typeof fetch,
  server: URL,
  name: string,
  resourceMetadataUrl: string | undefined,
  signal?: AbortSignal,
): Promise<Discovery> {
  let prm: ResourceMetadata | undefined;
  for (const url of resourceMetadataUrls(server, resourceMetadataUrl)) {
    prm = await fetchMetadata<ResourceMetadata>(fetchFn, url, name, signal);
    if (prm) break;
  }
  const issuerValue = prm?.authorization_servers?.[0];
  if (prm && issuerValue) {
    const resource = prm.resource ? checkResource(prm.resource, server, name) : canonicalResource(server);
    const issuer = requireSecureUrl(issuerValue, "authorization server", name);
    let metadata: AuthServerMetadata | undefined;
    for (const url of authServerMetadataUrls(issuer)) {
      metadata = await fetchMetadata<AuthServerMetadata>(fetchFn, url, name, signal);
      if (metadata) break;
    }
    if (!metadata?.token_endpoint) throw authError(name, `authorization server ${issuer.href} publishes no OAuth or OpenID metadata`);
    if (metadata.issuer !== undefined && trimSlash(metadata.issuer) !== trimSlash(issuer.href))
      throw authError(name, `authorization server metadata names issuer ${metadata.issuer}, not ${issuer.href}`);
    return { resource, issuer: issuer.href, metadata, resourceScopes: prm.scopes_supported };
  }
  // 2025-03-26: the authorization base URL is the server's origin.
  const base = new URL(server.origin);
  let metadata: AuthServerMetadata | undefined;
  for (const url of authServerMetadataUrls(base)) {
    metadata = await fetchMetadata<AuthServerMetadata>(fetchFn, url, name, signal);
    if (metadata) break;
  }
  metadata ??= {
    authorization_endpoint: new URL("/authorize", base).href,
    token_endpoint: new URL("/token", base).href,
    registration_endpoint: new URL("/register", base).href,
  };
  return { resource: canonicalResource(server), issuer: base.href, metadata };
}
