/**
 * `@agentd/sdk/transport/http-server`: the Streamable HTTP server transport — one MCP endpoint (POST + GET +
 * DELETE), SSE or JSON responses, sessions, `Last-Event-ID` resumption, and the hardening of the security
 * best practices — with its options, limits and mounts. `@agentd/sdk/transport` exports the same names beside
 * the client, OAuth and stdio parts; this entry exists so that a server loads none of them (from sources, as
 * Bun runs the package, an entry's barrel loads everything it names).
 *
 * @module @agentd/sdk/transport/http-server
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
export type { JwtIssuerOptions } from "./jwt-verifier.ts";
export { isLoopbackHost } from "./origin-check.ts";

// ── What the server's options name of the shared types ──
export type { Permission, Transport } from "../types.ts";
