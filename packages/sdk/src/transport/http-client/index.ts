/** The Streamable HTTP client transport: one remote MCP server over POST + GET (SSE) + DELETE. */
export { StreamableHttpClientTransport, type GetStreamState } from "./streamable-http-client.ts";
export { DEFAULT_RECONNECT, type ReconnectOptions, type StreamableHttpClientOptions } from "./options.ts";
export { encodeHeaderValue } from "./modern-requests.ts";
