/**
 * Which client identity to use with an authorization server, in the MCP spec's order (2025-11-25
 * "Client Registration Approaches"): pre-registered credentials from config; else a Client ID Metadata
 * Document URL when the server supports them; else a registration obtained earlier and stored; else
 * dynamic client registration (RFC 7591), stored for next time. The registration request is oauth4webapi's;
 * its answer is read here (see below).
 */
import * as oauth from "oauth4webapi";
import { chooseAuthMethod, type OAuthClient, type TokenAuthMethod } from "./client-auth.ts";
import type { Discovery } from "./discovery.ts";
import { authError, requireSecureUrl } from "./metadata.ts";
import { authorizationServer, requestOptions } from "./token-request.ts";
import type { TokenStore } from "./token-store.ts";

/** The client settings of one server (secrets already read from their env/file references). */
export interface ClientSettings {
  clientId?: string;
  clientSecret?: string;
  privateKeyPem?: string;
  signingAlg?: string;
  clientMetadataUrl?: string;
  clientName?: string;
}

/** Find or make the client to use; `redirectUri` only matters for a registration. */
export async function resolveClient(
  fetchFn: typeof fetch,
  d: Discovery,
  settings: ClientSettings,
  store: TokenStore,
  redirectUri: string | undefined,
  server: string,
  signal?: AbortSignal,
): Promise<OAuthClient> {
  const supported = d.metadata.token_endpoint_auth_methods_supported;
  const has = { secret: settings.clientSecret !== undefined, key: settings.privateKeyPem !== undefined };
  const keyed = {
    clientSecret: settings.clientSecret,
    privateKeyPem: settings.privateKeyPem,
    signingAlg: settings.signingAlg,
  };
  if (settings.clientId) return { clientId: settings.clientId, ...keyed, method: chooseAuthMethod(supported, has) };
  if (settings.clientMetadataUrl && d.metadata.client_id_metadata_document_supported === true)
    return { clientId: settings.clientMetadataUrl, ...keyed, method: has.key ? "private_key_jwt" : "none" };
  const stored = await store.getClient(d.issuer);
  if (stored && (redirectUri === undefined || !stored.redirectUris || stored.redirectUris.includes(redirectUri)))
    return {
      clientId: stored.clientId,
      clientSecret: stored.clientSecret || undefined,
      method: (stored.method as TokenAuthMethod) ?? chooseAuthMethod(supported, { secret: !!stored.clientSecret, key: false }),
    };
  if (!d.metadata.registration_endpoint)
    throw authError(
      server,
      `authorization server ${d.issuer} offers no dynamic client registration; configure oauth.clientId (or oauth.clientMetadataUrl) for this server`,
    );
  return register(fetchFn, d, settings, store, redirectUri, server, signal);
}

async function register(
  fetchFn: typeof fetch,
  d: Discovery,
  settings: ClientSettings,
  store: TokenStore,
  redirectUri: string | undefined,
  server: string,
  signal?: AbortSignal,
): Promise<OAuthClient> {
  const endpoint = requireSecureUrl(d.metadata.registration_endpoint!, "registration endpoint", server);
  const supported = d.metadata.token_endpoint_auth_methods_supported;
  const method =
    !supported || supported.includes("none")
      ? "none"
      : supported.includes("client_secret_basic")
        ? "client_secret_basic"
        : "client_secret_post";
  const request = {
    client_name: settings.clientName ?? "agentd",
    redirect_uris: redirectUri ? [redirectUri] : [],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
  };
  const response = await oauth.dynamicClientRegistrationRequest(
    authorizationServer(d),
    request,
    requestOptions(fetchFn, "registration endpoint", server, signal),
  );
  // Read here, not by oauth4webapi's processDynamicClientRegistrationResponse, which wants HTTP 201 exactly
  // and a `client_secret_expires_at` with every secret (RFC 7591 §3.2.1): the official conformance
  // authorization server issues secrets without it, so with oauth4webapi's reading 13 of the 22 conformance
  // auth scenarios fail (every one that registers). Any 2xx with a `client_id` has always been a registration.
  // Bounded: requestOptions' fetch read the answer (to 1 MiB) before handing it on.
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof json.client_id !== "string")
    throw authError(
      server,
      `client registration at ${endpoint.origin} was refused (HTTP ${response.status}${typeof json.error === "string" ? `, ${json.error}` : ""}); configure oauth.clientId for this server`,
    );
  const secret = typeof json.client_secret === "string" ? json.client_secret : undefined;
  const granted = typeof json.token_endpoint_auth_method === "string" ? json.token_endpoint_auth_method : undefined;
  const resolved: TokenAuthMethod =
    granted === "client_secret_basic" || granted === "client_secret_post" || granted === "none"
      ? granted
      : chooseAuthMethod(supported, { secret: !!secret, key: false });
  await store.setClient(d.issuer, {
    clientId: json.client_id,
    clientSecret: secret || undefined,
    method: resolved,
    redirectUris: redirectUri ? [redirectUri] : undefined,
  });
  return { clientId: json.client_id, clientSecret: secret || undefined, method: resolved };
}
