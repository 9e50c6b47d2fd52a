/** The Streamable HTTP client transport: one remote MCP server over POST + GET (SSE) + DELETE. */
export { StreamableHttpClientTransport, type GetStreamState } from "./streamable-http-client.ts";
export { DEFAULT_RECONNECT, reconnectDelay, type ReconnectOptions, type StreamableHttpClientOptions } from "./options.ts";
export { type AuthChallenge, type HttpAuthProvider, MAX_AUTH_ROUNDS } from "./auth-provider.ts";
export { type LazyOAuthOptions, lazyOAuthProvider } from "./lazy-oauth.ts";
