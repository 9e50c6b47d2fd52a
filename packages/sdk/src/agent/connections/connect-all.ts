/**
 * The agent's MCP connections: connect every enabled server once (concurrently), keep the managed clients
 * by name, and close them all. A required server that fails fails `connect()` (every client opened so far
 * is closed again, and a later `connect()` retries); an optional one is logged and left out.
 */
import type { McpServerConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { CapabilityConfig } from "../../mcp/capabilities.ts";
import type { ReconnectPolicy } from "../../mcp/client/managed/backoff.ts";
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import type { TokenStore } from "../../transport/http-client/index.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { TaskJournal } from "../../mcp/client/task-journal.ts";
import { connectManagedServer } from "./connect-server.ts";

/** What the connections are made with (the agent's options). */
export interface ConnectionOptions {
  mcpServers?: Record<string, McpServerConfig>;
  capabilities?: CapabilityConfig;
  /** One server's capabilities, when they differ from `capabilities` (e.g. its own sampling handler). */
  capabilitiesFor?: (server: string) => CapabilityConfig | undefined;
  reconnect?: Partial<ReconnectPolicy>;
  httpReactivity?: boolean;
  /** Where task-augmented calls are noted (the checkpoint's, when it is on). */
  taskJournal?: TaskJournal;
  /** Where OAuth tokens live (default: the token file). */
  tokenStore?: TokenStore;
  /** Every server's request timeout and ceiling (ms) unless its entry sets its own (`limits.mcpTimeout`, `limits.mcpMaxTotalTimeout`). */
  requestTimeoutMs?: number;
  maxTotalTimeoutMs?: number;
  logger: Logger;
}

/** The connections of one agent. */
export interface Connections {
  readonly clients: Map<string, ManagedMcpClient>;
  /** Connect every server (once; again after a failure). */
  connect(): Promise<void>;
  /** Close every client; later `connect()` calls reject. Idempotent. */
  close(): Promise<void>;
}

/** See the module header. */
export function createConnections(options: ConnectionOptions): Connections {
  const clients = new Map<string, ManagedMcpClient>();
  const { logger } = options;
  let connecting: Promise<void> | undefined;
  let closed = false;

  const connect = (): Promise<void> => {
    if (closed) return Promise.reject(new AgentdError("E_USAGE", "the agent is closed"));
    connecting ??= (async () => {
      const entries = Object.entries(options.mcpServers ?? {}).filter(([, c]) => c.disabled !== true);
      const results = await Promise.allSettled(
        entries.map(async ([name, config]) => {
          const capabilities = options.capabilitiesFor?.(name) ?? options.capabilities;
          const client = await connectManagedServer(name, config, {
            logger,
            capabilities,
            reconnect: options.reconnect,
            httpReactivity: options.httpReactivity,
            taskJournal: options.taskJournal,
            tokenStore: options.tokenStore,
            requestTimeoutMs: options.requestTimeoutMs,
            maxTotalTimeoutMs: options.maxTotalTimeoutMs,
          });
          if (closed) {
            await client.close();
            return;
          }
          clients.set(name, client);
        }),
      );
      const failures: Error[] = [];
      results.forEach((r, i) => {
        if (r.status === "fulfilled") return;
        const [name, config] = entries[i] as [string, McpServerConfig];
        if (config.required === false) logger.warn("mcp.unavailable", { server: name, error: (r.reason as Error).message });
        else failures.push(r.reason as Error);
      });
      if (failures.length > 0) {
        await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
        clients.clear();
        connecting = undefined;
        throw failures[0];
      }
    })();
    return connecting;
  };

  return {
    clients,
    connect,
    async close() {
      closed = true;
      await connecting?.catch(() => {});
      await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
      clients.clear();
    },
  };
}
