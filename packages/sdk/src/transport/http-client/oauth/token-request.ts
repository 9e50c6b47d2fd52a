/**
 * Requests to the token endpoint (OAuth 2.1 §3.2), made and checked by oauth4webapi: authorization code (with
 * the PKCE verifier), refresh token, client credentials and the JWT bearer grant, each with the RFC 8707
 * `resource`. oauth4webapi validates the answer (a string `access_token` and `token_type`, a number
 * `expires_in`, string `refresh_token` and `scope`, the claims of an ID token if one comes); it is read here
 * into stored form. Error messages carry the server's `error` code and description, never a token or secret.
 */
import * as oauth from "oauth4webapi";
import { bufferedResponse } from "../../../_internal/bounded-body.ts";
import { fetchFollowingRedirects } from "../../../_internal/redirects.ts";
import { AgentdError } from "../../../wire/errors.ts";
import { clientAuth, type OAuthClient } from "./client-auth.ts";
import type { Discovery } from "./discovery.ts";
import { authError, oauthBound, requireSecureUrl } from "./metadata.ts";
import type { StoredTokens } from "./token-store.ts";

/** RFC 7523 JWT bearer grant. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/**
 * One grant: the authorization code with the redirect's query as `validateAuthResponse` returned it (state and
 * issuer checked), or another grant type with its form fields (undefined ones left out). `resource` and client
 * authentication are added here.
 */
export type Grant =
  | { grant_type: "authorization_code"; callback: URLSearchParams; redirectUri: string; verifier: string }
  | { grant_type: "refresh_token" | "client_credentials" | typeof JWT_BEARER_GRANT; fields: Record<string, string | undefined> };

/** A refused token request (the server's `error` code is kept, e.g. `invalid_grant`). */
export class TokenRequestError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** The authorization server as oauth4webapi takes it: metadata with an issuer (the discovered one if it names none). */
export function authorizationServer(d: Discovery): oauth.AuthorizationServer {
  return { ...d.metadata, issuer: d.metadata.issuer ?? d.issuer };
}

/**
 * Options of an oauth4webapi request: our fetch (a network failure becomes one line naming `what`; no
 * redirect to another origin carries the client's credentials; the answer is read to 1 MiB before
 * oauth4webapi sees it), and plain
 * `http://` allowed, because every endpoint has passed `requireSecureUrl` first, which admits `http://` on
 * loopback only (oauth4webapi can only refuse all of `http://` or none of it).
 */
export function requestOptions(fetchFn: typeof fetch, what: string, server: string, signal?: AbortSignal) {
  return {
    [oauth.customFetch]: (url: string, init: RequestInit) =>
      fetchFollowingRedirects(fetchFn, url, init, { peer: `MCP server '${server}': ${what}`, code: "E_UNAUTHORIZED" })
        .then((response) => bufferedResponse(response, oauthBound(server, what, url)))
        .catch((e: unknown) => {
          if (AgentdError.isInstance(e)) throw e;
          throw authError(server, `${what} ${new URL(url).origin} could not be reached: ${e instanceof Error ? e.message : String(e)}`, e);
        }),
    [oauth.allowInsecureRequests]: true,
    signal,
  };
}

/** POST a token request and turn the answer into {@link StoredTokens}. */
export async function requestToken(
  fetchFn: typeof fetch,
  d: Discovery,
  client: OAuthClient,
  grant: Grant,
  server: string,
  signal?: AbortSignal,
): Promise<StoredTokens> {
  requireSecureUrl(d.metadata.token_endpoint, "token endpoint", server);
  const as = authorizationServer(d);
  const c: oauth.Client = { client_id: client.clientId };
  const auth = await clientAuth(client);
  const options = requestOptions(fetchFn, "token endpoint", server, signal);
  const fields: Record<string, string> = {};
  if (grant.grant_type !== "authorization_code") for (const [k, v] of Object.entries(grant.fields)) if (v) fields[k] = v;
  const response =
    grant.grant_type === "authorization_code"
      ? await oauth.authorizationCodeGrantRequest(as, c, auth, grant.callback, grant.redirectUri, grant.verifier, {
          ...options,
          additionalParameters: { resource: d.resource },
        })
      : await oauth.genericTokenEndpointRequest(as, c, auth, grant.grant_type, { ...fields, resource: d.resource }, options);
  const answer = await (grant.grant_type === "authorization_code"
    ? oauth.processAuthorizationCodeResponse(as, c, response)
    : oauth.processGenericTokenEndpointResponse(as, c, response)
  ).catch(async (e: unknown) => {
    throw await refusal(e, `the authorization server refused the ${grant.grant_type} grant`, server);
  });
  if (answer.token_type !== "bearer") throw unsupportedType(answer.token_type, server);
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token || undefined,
    expiresAt: answer.expires_in ? Date.now() + answer.expires_in * 1000 : undefined,
    scope: (answer.scope ?? fields.scope) || undefined,
    resource: d.resource,
    issuer: d.issuer,
  };
}

/** A token the token endpoint issued with a type other than Bearer (DPoP-bound, say), which agentd cannot send. */
const unsupportedType = (type: unknown, server: string) =>
  authError(server, `the token endpoint issued a '${String(type)}' token; only Bearer is supported`);

/**
 * What oauth4webapi's rejection of a token endpoint's answer means: a refusal (an error status, with the
 * server's `error` code when its body has one, else `http_<status>`) as a {@link TokenRequestError} headed
 * `refused` (and followed by `hint`), anything else (a 200 without an access token, say) as a one-line `E_UNAUTHORIZED`.
 */
export async function refusal(e: unknown, refused: string, server: string, hint = ""): Promise<Error> {
  // The body of an error status: read by oauth4webapi (`ResponseBodyError`), or not (behind a
  // WWW-Authenticate challenge, not `application/json`, or a 5xx), already read to 1 MiB by requestOptions' fetch.
  const response =
    e instanceof oauth.WWWAuthenticateChallengeError
      ? e.response
      : e instanceof oauth.OperationProcessingError && e.cause instanceof Response && !e.cause.ok
        ? e.cause
        : undefined;
  const body: { error?: unknown; error_description?: unknown } | undefined =
    e instanceof oauth.ResponseBodyError ? e.cause : response ? await response.json().catch(() => ({})) : undefined;
  if (body) {
    const code = typeof body.error === "string" ? body.error : `http_${response?.status}`;
    const why = typeof body.error_description === "string" ? `: ${body.error_description.slice(0, 200)}` : "";
    return new TokenRequestError(code, `MCP server '${server}': ${refused} (${code}${why})${hint}`);
  }
  if (e instanceof oauth.UnsupportedOperationError)
    return unsupportedType((e.cause as { body?: { token_type?: unknown } } | undefined)?.body?.token_type, server);
  if (e instanceof oauth.OperationProcessingError) return authError(server, `the token endpoint's answer is not usable: ${e.message}`, e);
  return e instanceof Error ? e : new Error(String(e));
}
