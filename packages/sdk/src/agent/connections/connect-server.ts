/**
 * Connect one configured MCP server: build its transport from the `mcpServers` entry (stdio child or
 * Streamable HTTP) and run the initialize handshake. Failures become one clear `E_UPSTREAM` line naming
 * the server.
 *
 * `connectManagedServer` (what `createAgent` uses) returns a {@link ManagedMcpClient}, which rebuilds the
 * transport from the same entry whenever the connection drops; `connectServer` returns a plain, single
 * connection {@link McpClient}.
 */
import type { McpServerConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { TaskJournal } from "../../mcp/client/task-journal.ts";
import { McpClient, type McpClientOptions } from "../../mcp/client/client.ts";
import type { CapabilityConfig } from "../../mcp/capabilities.ts";
import type { ReconnectPolicy } from "../../mcp/client/managed/backoff.ts";
import { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import { settleDeclaredRoots, watchRootsRequests } from "../../mcp/client/roots-settle.ts";
import {
  type HttpAuthProvider,
  lazyOAuthProvider,
  StreamableHttpClientTransport,
  type TokenStore,
} from "../../transport/http-client/index.ts";
import { takePrelaunchedServer } from "../../transport/prelaunch.ts";
import { StdioChildTransport } from "../../transport/stdio-child.ts";
import type { Transport } from "../../transport/types.ts";
import { AgentdError } from "../../wire/errors.ts";

/** What identifies us to servers. */
export const CLIENT_INFO = { name: "agentd", version: "0.1.0" };

/** Options for connecting one server. */
export interface ConnectServerOptions {
  logger: Logger;
  runId?: string;
  capabilities?: CapabilityConfig;
  /** How long the initialize handshake may take (ms, default 30 s). */
  connectTimeoutMs?: number;
  /** Each request's timeout without a response or progress (ms), unless the entry sets `timeout` (default 60 s). */
  requestTimeoutMs?: number;
  /** Each request's ceiling, progress or not (ms), unless the entry sets `maxTotalTimeout` (default 1 h). */
  maxTotalTimeoutMs?: number;
  /** Reconnect pacing of a managed connection (see `ManagedMcpClient`). */
  reconnect?: Partial<ReconnectPolicy>;
  /** Use server push (the GET stream) on HTTP servers (default false: request/response only). */
  httpReactivity?: boolean;
  /** Where task-augmented calls are noted (the checkpoint's, when it is on). */
  taskJournal?: TaskJournal;
  /** Where OAuth tokens of servers with an `oauth` block live (default: the token file). */
  tokenStore?: TokenStore;
}

/** Why a subscription on an HTTP server gets no updates while reactivity over HTTP is off. */
const HTTP_REACTIVITY_OFF = "reactivity over HTTP is off: set capabilities.httpReactivity to true, or give the trigger a pollInterval";

/** Build the transport an `mcpServers` entry describes. */
export function transportFor(
  name: string,
  config: McpServerConfig,
  logger: Logger,
  options: { httpReactivity?: boolean; auth?: HttpAuthProvider; tokenStore?: TokenStore } = {},
): Transport {
  if ("command" in config) {
    const options = {
      name,
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      logger: logger.child({ server: name }),
    };
    // A process spawned ahead of the agent for this very server (transport/prelaunch.ts) is used first.
    return takePrelaunchedServer(options) ?? new StdioChildTransport(options);
  }
  return new StreamableHttpClientTransport(config.url, {
    headers: config.headers,
    auth: options.auth ?? (config.oauth ? oauthFor(name, config, logger, options.tokenStore) : undefined),
    logger: logger.child({ server: name }),
    name,
    openGetStream: options.httpReactivity === true ? undefined : false,
  });
}

/**
 * The OAuth provider of an `mcpServers` entry with an `oauth` block (loaded lazily). Headless: a server that
 * needs a person's grant and has no stored token fails with the `agentd auth login NAME` hint.
 */
function oauthFor(name: string, config: McpServerConfig, logger: Logger, store?: TokenStore): HttpAuthProvider {
  const c = config as { url: string; oauth: NonNullable<Extract<McpServerConfig, { url: string }>["oauth"]> };
  return lazyOAuthProvider({
    server: name,
    url: c.url,
    config: c.oauth,
    store,
    logger: logger.child({ server: name }),
  });
}

/** A request's timeouts: the entry's own `timeout` / `maxTotalTimeout`, else the agent's, else the client's defaults. */
function requestTimeouts(
  options: ConnectServerOptions,
  config?: McpServerConfig,
): Pick<McpClientOptions, "requestTimeoutMs" | "maxTotalTimeoutMs"> {
  const timeout = config?.timeout ?? options.requestTimeoutMs;
  const ceiling = config?.maxTotalTimeout ?? options.maxTotalTimeoutMs;
  // 0 is no bound of its own: the client's default applies.
  return { requestTimeoutMs: timeout || undefined, maxTotalTimeoutMs: ceiling || undefined };
}

function clientOptions(options: ConnectServerOptions, config?: McpServerConfig): Omit<McpClientOptions, "logger"> {
  return {
    versionNegotiation: config?.versionNegotiation || undefined,
    runId: options.runId,
    capabilities: options.capabilities,
    ...requestTimeouts(options, config),
    taskJournal: options.taskJournal,
  };
}

/** A start-up failure as one `E_UPSTREAM` line naming the server (CLI exit 4). */
export function upstreamError(name: string, e: unknown): AgentdError {
  const detail = e instanceof Error ? e.message : String(e);
  // Transport errors usually name the server already: don't say it twice.
  const named = detail.includes(`'${name}'`);
  // A configuration mistake (e.g. plain http:// to a remote host) stays one: exit 2, not "unavailable".
  if (AgentdError.isInstance(e) && (e.code === "E_CONFIG_INVALID" || e.code === "E_USAGE"))
    return new AgentdError("E_CONFIG_INVALID", named ? detail : `MCP server '${name}': ${detail}`, { cause: e });
  // A server that exited says how (code, last stderr lines): "MCP server 'x' is unavailable: exited with …".
  const prefix = `MCP server '${name}' `;
  if (detail.startsWith(`${prefix}exited `) || detail.startsWith(`${prefix}was killed `))
    return new AgentdError("E_UPSTREAM", `${prefix}is unavailable: ${detail.slice(prefix.length)}`, { cause: e, retryable: true });
  if (AgentdError.isInstance(e) && (e.code === "E_UNAUTHORIZED" || e.code === "E_PROTOCOL_VERSION"))
    return new AgentdError("E_UPSTREAM", named ? detail : `MCP server '${name}': ${detail}`, { cause: e });
  return new AgentdError("E_UPSTREAM", named ? `${detail} (unavailable)` : `MCP server '${name}' is unavailable: ${detail}`, {
    cause: e,
    retryable: true,
  });
}

/** A managed (reconnecting) client for an `mcpServers` entry, not yet started. */
export function managedClientFor(name: string, config: McpServerConfig, options: ConnectServerOptions): ManagedMcpClient {
  // One provider for every transport the managed client builds: tokens, refreshes and discovery are shared.
  const auth = "url" in config && config.oauth ? oauthFor(name, config, options.logger, options.tokenStore) : undefined;
  return new ManagedMcpClient({
    name,
    transportFactory: () => {
      const transport = transportFor(name, config, options.logger, {
        httpReactivity: options.httpReactivity,
        auth,
      });
      // Spawn a stdio server at once: its start-up overlaps with the client's own set-up of the handshake.
      if (transport instanceof StdioChildTransport) void transport.launch();
      return transport;
    },
    ...(options.httpReactivity === true ? {} : { push: false, pushOffReason: HTTP_REACTIVITY_OFF }),
    clientInfo: CLIENT_INFO,
    client: clientOptions(options, config),
    reconnect: options.reconnect,
    connectTimeoutMs: options.connectTimeoutMs || undefined,
    logger: options.logger,
  });
}

/**
 * Connect to one server with a managed client: the first connect must succeed (else `E_UPSTREAM` naming the
 * server); afterwards the client reconnects by itself whenever the connection drops.
 */
export async function connectManagedServer(
  name: string,
  config: McpServerConfig,
  options: ConnectServerOptions,
): Promise<ManagedMcpClient> {
  const client = managedClientFor(name, config, options);
  try {
    await client.start({ timeoutMs: options.connectTimeoutMs ?? 30_000 });
  } catch (e) {
    await client.close().catch(() => {});
    throw upstreamError(name, e);
  }
  options.logger.info("mcp.connected", { server: name, protocolVersion: client.protocolVersion, serverName: client.serverInfo?.name });
  return client;
}

/**
 * Connect to one server, once (no reconnect). Rejects with an `E_UPSTREAM` AgentdError naming the server.
 * With roots declared, it resolves once a server that asked for them at start-up has applied them (see
 * `mcp/client/roots-settle.ts`), so a request sent at once is served within them.
 */
export async function connectServer(name: string, config: McpServerConfig, options: ConnectServerOptions): Promise<McpClient> {
  const client = new McpClient(CLIENT_INFO, {
    logger: options.logger.child({ server: name }),
    serverName: name,
    ...clientOptions(options, config),
  });
  const transport = transportFor(name, config, options.logger, { tokenStore: options.tokenStore });
  const asked = watchRootsRequests(client);
  try {
    await client.connect(transport, { timeoutMs: options.connectTimeoutMs ?? 30_000 });
    await settleDeclaredRoots(client, options.capabilities?.roots, asked, options.logger.child({ server: name }));
  } catch (e) {
    await client.close().catch(() => {});
    throw upstreamError(name, e);
  }
  options.logger.info("mcp.connected", { server: name, protocolVersion: client.protocolVersion, serverName: client.serverInfo?.name });
  return client;
}
