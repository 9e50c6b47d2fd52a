/**
 * Requests to the token endpoint (OAuth 2.1 §3.2): authorization code (with the PKCE verifier), refresh
 * token and client credentials, each with the RFC 8707 `resource`, and the response read into stored form.
 * Error messages carry the server's `error` code and description, never a token or secret.
 */
import { authenticate, type OAuthClient } from "./client-auth.ts";
import type { Discovery } from "./discovery.ts";
import { authError, requireSecureUrl } from "./metadata.ts";
import type { StoredTokens } from "./token-store.ts";

/** Grant-specific form fields; `resource`, client authentication and headers are added here. */
export type GrantFields = Record<string, string | undefined>;

/** A refused token request (the server's `error` code is kept, e.g. `invalid_grant`). */
export class TokenRequestError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/** POST a token request and turn the answer into {@link StoredTokens}. */
export async function requestToken(
  fetchFn: typeof fetch,
  d: Discovery,
  client: OAuthClient,
  fields: GrantFields,
  server: string,
  signal?: AbortSignal,
): Promise<StoredTokens> {
  const endpoint = requireSecureUrl(d.metadata.token_endpoint, "token endpoint", server);
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== "") body.set(k, v);
  body.set("resource", d.resource);
  const headers = new Headers({ "content-type": "application/x-www-form-urlencoded", accept: "application/json" });
  await authenticate(client, body, headers, d.metadata.issuer ?? d.issuer);
  let response: Response;
  try {
    response = await fetchFn(endpoint, { method: "POST", headers, body, redirect: "error", ...(signal ? { signal } : {}) });
  } catch (e) {
    throw authError(server, `token endpoint ${endpoint.origin} could not be reached: ${e instanceof Error ? e.message : String(e)}`, e);
  }
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const code = typeof json.error === "string" ? json.error : `http_${response.status}`;
    const why = typeof json.error_description === "string" ? `: ${json.error_description.slice(0, 200)}` : "";
    throw new TokenRequestError(
      code,
      `MCP server '${server}': the authorization server refused the ${fields.grant_type} grant (${code}${why})`,
    );
  }
  if (typeof json.access_token !== "string" || json.access_token === "")
    throw authError(server, "the token endpoint answered without an access_token");
  if (typeof json.token_type === "string" && json.token_type.toLowerCase() !== "bearer")
    throw authError(server, `the token endpoint issued a '${json.token_type}' token; only Bearer is supported`);
  const expiresIn = typeof json.expires_in === "number" ? json.expires_in : Number(json.expires_in);
  return {
    accessToken: json.access_token,
    ...(typeof json.refresh_token === "string" ? { refreshToken: json.refresh_token } : {}),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresAt: Date.now() + expiresIn * 1000 } : {}),
    ...(typeof json.scope === "string" ? { scope: json.scope } : fields.scope ? { scope: fields.scope } : {}),
    resource: d.resource,
    issuer: d.issuer,
  };
}
