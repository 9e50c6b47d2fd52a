/**
 * The console's facts of an agent built by createAgent: its MCP clients (with reconnects and the last
 * error, counted from their events from the first time the console looks), its A2A peers, its subagents.
 */
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import { maskSecretValues } from "../../secret-values.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import type { ConsoleFacts, ConsoleServer } from "./console-facts.ts";

/** What {@link agentConsoleFacts} reads. */
export interface AgentFactsSources {
  version?: string;
  clients: ReadonlyMap<string, ManagedMcpClient>;
  /** The configured servers (for their transport kind). */
  mcpServers?: Record<string, { url?: string } | object>;
  a2aAgents?: Record<string, { url: string }>;
  supervisor?: Supervisor;
  lifecycle(): Record<string, unknown>;
  ready: ConsoleFacts["ready"];
  triggers?: () => unknown[];
  /** Changes of the triggers' table. */
  onTriggersChange?: (listener: () => void) => () => void;
  /** The configured model prices, read at each look. */
  prices?: () => unknown;
  /** The agent's conversations (a run's page shows the one it continued). */
  conversations?: ConsoleFacts["conversations"];
}

/** The facts of an agent for its console. */
export function agentConsoleFacts(s: AgentFactsSources): ConsoleFacts {
  const seen = new Map<string, { reconnects: number; lastError?: string }>();
  const watch = (c: ManagedMcpClient) => {
    let w = seen.get(c.name);
    if (w) return w;
    const watched: { reconnects: number; lastError?: string } = { reconnects: 0 };
    seen.set(c.name, (w = watched));
    c.events.on("reconnected", () => void watched.reconnects++);
    c.events.on("disconnected", (e) => void (watched.lastError = e.error ?? e.reason));
    c.events.on("failed", (e) => void (watched.lastError = e.error));
    return w;
  };
  return {
    version: s.version,
    lifecycle: s.lifecycle,
    ready: s.ready,
    triggers: s.triggers,
    onChange: s.onTriggersChange,
    servers: () =>
      [...s.clients.values()].map((c): ConsoleServer => {
        const w = watch(c);
        const config = s.mcpServers?.[c.name];
        return {
          name: c.name,
          transport: config && "url" in config && config.url ? "http" : "stdio",
          state: c.state,
          revision: c.protocolVersion || undefined,
          capabilities: Object.keys(c.serverCapabilities),
          serverInfo: c.serverInfo ? { name: c.serverInfo.name, version: c.serverInfo.version } : undefined,
          reconnects: w.reconnects,
          lastError: w.lastError || undefined,
        };
      }),
    // A peer's URL may carry a `${VAR}` value (a key in the query).
    a2aPeers: () => Object.entries(s.a2aAgents ?? {}).map(([name, a]) => ({ name, url: maskSecretValues(a.url) })),
    subagents: s.supervisor ? () => s.supervisor!.list() : undefined,
    prices: s.prices,
    conversations: s.conversations,
  };
}
