/**
 * OAuth 2.1 client for remote MCP servers (loaded lazily: see `../lazy-oauth.ts`).
 *
 * The protocol requests are made and checked by oauth4webapi (pinned; no dependencies; by the author of `jose`
 * and `oidc-provider`, which agentd already uses): the token request of every grant and the validation of its
 * answer (`token-request.ts`), client authentication none, `client_secret_post` and `private_key_jwt`
 * (`client-auth.ts`), PKCE, state and the RFC 9207 issuer of the authorization response (`provider.ts`), the
 * registration request (`registration.ts`) and the token exchange at an IdP (`identity-assertion.ts`). Ours,
 * each file saying why: discovery in the MCP spec's order, the reading of a registration, Basic credentials;
 * and agentd's own parts: scopes, the token store and its cross-process refresh lock, headless login, settings.
 *
 * Weighed against our own hand-written requests and adopted, though not for size: the files here (tests aside)
 * went from 1,500 lines to 1,589 (1,182 to 1,205 without comments and blank lines), because discovery,
 * registration reading and Basic stay ours and oauth4webapi's errors are read into ours; it adds 335 kB
 * installed (100 kB of it JavaScript) and takes this module from 43.5 to 53.7 kB minified. What it buys is
 * protocol validation kept by a specialist rather than by us: every field of a token answer and the claims of
 * any ID token, the `iss` of the authorization response (mix-up defence), refusals behind a `WWW-Authenticate`
 * challenge, and DPoP, PAR or JAR ready should MCP servers ask for them.
 */
export { canonicalResource, discover, type Discovery } from "./discovery.ts";
export { type AuthorizationCodeHandler, OAuthClientProvider, type OAuthProviderOptions, type OAuthSettings, tokenKey } from "./provider.ts";
export {
  defaultTokenFile,
  defaultTokenStore,
  FileTokenStore,
  MemoryTokenStore,
  storeKeyFrom,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
} from "./token-store.ts";
export { resolveOAuthSettings, type OAuthConfig } from "./settings.ts";
export { type LoginOptions, type LoginResult, type LoginStatus, loginServer, loginStatus, logoutServer } from "./login.ts";
export { type LoopbackRedirect, startLoopbackRedirect } from "./loopback-redirect.ts";
