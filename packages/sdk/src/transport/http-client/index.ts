/** The Streamable HTTP client transport: one remote MCP server over POST + GET (SSE) + DELETE. */
export { StreamableHttpClientTransport, type GetStreamState } from "./streamable-http-client.ts";
export { DEFAULT_RECONNECT, type ReconnectOptions, type StreamableHttpClientOptions } from "./options.ts";
export { encodeHeaderValue } from "./requests-2026-07-28.ts";
export { type AuthChallenge, type HttpAuthProvider, MAX_AUTH_ROUNDS } from "./auth-provider.ts";
export { type LazyOAuthOptions, lazyOAuthProvider } from "./lazy-oauth.ts";
/** The OAuth client (login, status, logout, token stores), loaded on demand so plain runs never pay for it. */
export const loadOAuth = () => import("./oauth/index.ts");
export type { LoginResult, LoginStatus, OAuthConfig, StoredTokens, TokenStore } from "./oauth/index.ts";
