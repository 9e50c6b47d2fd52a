/**
 * Streamable HTTP server transport: one MCP endpoint (POST + GET + DELETE), SSE or JSON responses,
 * sessions, `Last-Event-ID` resumption, and the hardening of the security best practices.
 */
export { createStreamableHttpServer, type StreamableHttpServer } from "./server.ts";
export {
  DEFAULT_HTTP_LIMITS,
  type BearerTokenEntry,
  type HttpMount,
  type HttpServerLimits,
  type ResourceMetadataOptions,
  type StreamableHttpServerOptions,
} from "./options.ts";
export type { HttpAdapterName } from "./adapter/types.ts";
export { HttpSessionTransport } from "./session-transport.ts";
export { PROTECTED_RESOURCE_PATH } from "./auth.ts";
export type { JwtIssuerOptions } from "./jwt-verifier.ts";
export { isLoopbackHost } from "./origin-check.ts";
