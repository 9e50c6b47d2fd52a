/**
 * `@agentd/sdk/transport`: one `Transport` interface and its implementations — a stdio child
 * (`StdioChildTransport`), stdio as a server (`StdioServerTransport`), an in-memory pair (`MemoryTransport`),
 * the Streamable HTTP client and server — plus OAuth for remote servers (`loadOAuth`, loaded on demand) and
 * running this program again as a stdio server (`selfCommand`, `prelaunchStdioServer`).
 *
 * @module @agentd/sdk/transport
 */
export type { Transport, TransportPeer, SendOptions, MessageExtra, FrameError, Permission } from "./types.ts";
export { MemoryTransport } from "./memory.ts";
export { StdioChildTransport, type StdioChildOptions, type ChildExit } from "./stdio-child.ts";
export { StdioServerTransport, type StdioServerTransportOptions } from "./stdio-self.ts";
export { prelaunchStdioServer, discardPrelaunchedServers } from "./prelaunch.ts";
export { selfCommand } from "../_internal/self-command.ts";

// ── Streamable HTTP: the client, OAuth ──
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientOptions,
  type ReconnectOptions,
  type GetStreamState,
  type HttpAuthProvider,
  type AuthChallenge,
  loadOAuth,
  type LoginResult,
  type LoginStatus,
  type OAuthConfig,
  type StoredTokens,
  type TokenStore,
} from "./http-client/index.ts";

// ── Streamable HTTP: the server ──
export {
  createStreamableHttpServer,
  type StreamableHttpServer,
  DEFAULT_HTTP_LIMITS,
  type StreamableHttpServerOptions,
  type HttpServerLimits,
  type HttpMount,
  type BearerTokenEntry,
  type ResourceMetadataOptions,
  type HttpAdapterName,
  type JwtIssuerOptions,
  isLoopbackHost,
} from "./http-server/index.ts";
