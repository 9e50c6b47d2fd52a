/**
 * Enterprise-managed authorization (the MCP extension of that name, SEP-990): no person at a consent screen;
 * the enterprise's identity provider vouches for them.
 *
 * 1. Token exchange at the IdP (RFC 8693): the person's ID token (from their single sign-on) goes in as
 *    `subject_token`, an Identity Assertion Authorization Grant (ID-JAG, a JWT of type `oauth-id-jag+jwt`)
 *    comes back, addressed (`audience`) to the MCP server's authorization server and bound to the MCP
 *    server (`resource`).
 * 2. JWT bearer grant at the MCP server's authorization server (RFC 7523): the ID-JAG as `assertion`, with
 *    agentd's client authentication there, gives the access token (`token-request.ts`).
 *
 * The ID token is read when the grant runs (an environment variable or a file the platform refreshes);
 * an expired one is refused by the IdP, and that refusal is the error. Both requests are oauth4webapi's.
 */
import * as oauth from "oauth4webapi";
import type { Discovery } from "./discovery.ts";
import { authError, requireSecureUrl } from "./metadata.ts";
import { refusal, requestOptions } from "./token-request.ts";

/** RFC 8693 token exchange. */
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";

/** Where the grant comes from: the IdP, agentd's client there, and the person's ID token. */
export interface IdentityAssertionSettings {
  /** The IdP's token endpoint. */
  tokenEndpoint: string;
  /** agentd's client id at the IdP. */
  clientId?: string;
  /** Its secret there (sent as `client_secret_post`). */
  clientSecret?: string;
  /** The person's ID token, read when needed. */
  idToken: () => string;
}

/** Exchange the ID token for an ID-JAG addressed to `d`'s authorization server and resource. */
export async function requestIdJag(
  fetchFn: typeof fetch,
  ia: IdentityAssertionSettings,
  d: Discovery,
  scope: string | undefined,
  server: string,
  signal?: AbortSignal,
): Promise<string> {
  const endpoint = requireSecureUrl(ia.tokenEndpoint, "identity provider token endpoint", server);
  // The IdP is known by its token endpoint alone (no metadata), and agentd's client there may have no id:
  // the form carries whichever of `client_id` and `client_secret` is configured (oauth4webapi wants some id).
  const idp = { issuer: endpoint.href, token_endpoint: endpoint.href };
  const auth: oauth.ClientAuth = (_as, _client, body) => {
    if (ia.clientId) body.set("client_id", ia.clientId);
    if (ia.clientSecret) body.set("client_secret", ia.clientSecret);
  };
  const client = { client_id: ia.clientId ?? "agentd" };
  const response = await oauth.genericTokenEndpointRequest(
    idp,
    client,
    auth,
    TOKEN_EXCHANGE_GRANT,
    {
      requested_token_type: ID_JAG,
      audience: d.metadata.issuer ?? d.issuer,
      resource: d.resource,
      subject_token: ia.idToken(),
      subject_token_type: ID_TOKEN,
      // Form fields: an undefined value would be sent as the string "undefined".
      ...(scope ? { scope } : {}),
    },
    requestOptions(fetchFn, "identity provider", server, signal),
  );
  // RFC 8693 §2.2.1: a token that is not an access token has the type `N_A`.
  const answer = await oauth
    .processGenericTokenEndpointResponse(idp, client, response, { recognizedTokenTypes: { n_a: () => {} } })
    .catch(async (e: unknown) => {
      throw await refusal(e, "the identity provider refused the token exchange", server, "; is the ID token current?");
    });
  if (answer.issued_token_type !== ID_JAG)
    throw authError(
      server,
      "the identity provider's token exchange answered without an identity assertion grant (issued_token_type id-jag)",
    );
  return answer.access_token;
}
