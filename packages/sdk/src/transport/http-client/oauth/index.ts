/** OAuth 2.1 client for remote MCP servers (loaded lazily: see `../lazy-oauth.ts`). */
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
