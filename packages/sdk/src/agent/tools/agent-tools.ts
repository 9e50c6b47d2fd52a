/**
 * The tool set a run is offered: every connected server's tools as `server/tool`, then the agent's own
 * (agent-subagents.ts), the self-subscription tools when runs may subscribe the agent themselves, and
 * the remote A2A agents as `a2a:NAME` — each set handing on to the next for names it does not know.
 */
import type { AuthorizationAsk } from "../../mcp/client/authorization-ask.ts";
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import type { Logger } from "../../log.ts";
import type { ToolSet } from "../../loop/tools.ts";
import { lazyA2aTools, type LazyA2aTools } from "../../a2a/client/tools.ts";
import type { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import { SelfSubscribeToolSet } from "../../triggers/runner/self-subscribe-tools.ts";
import { SelfSubscriptions } from "../../triggers/runner/self-subscriptions.ts";
import type { AgentOptions } from "../agent-options.ts";
import type { AgentConnections } from "../connections/agent-connections.ts";
import { McpToolSet } from "./mcp-tool-set.ts";
import { toolFilters } from "./server-tool-filter.ts";

/** The tool set, and the parts of it the agent reaches later. */
export interface AgentTools {
  toolSet: McpToolSet;
  /** Runs' self-arranged subscriptions (with `triggers.selfSubscribe`). */
  selfSubs: SelfSubscriptions | undefined;
  /** The A2A tools, settled when the agent closes. */
  a2aTools: LazyA2aTools | undefined;
  /** Who completes a server's authorization for each run that can (an A2A task's client), by run id. */
  authorizations: Map<string, AuthorizationAsk>;
}

/** See the module header. `triggers` is read when a self-subscription tool is called: by then they are built. */
export function agentTools(
  options: AgentOptions,
  parts: {
    clients: ReadonlyMap<string, ManagedMcpClient>;
    own: ToolSet | undefined;
    connected: AgentConnections;
    triggers: () => AgentTriggers | undefined;
    logger: Logger;
  },
): AgentTools {
  const { logger, connected } = parts;
  const optional = new Set(Object.entries(options.mcpServers ?? {}).flatMap(([name, c]) => (c.required === false ? [name] : [])));
  const selfSubscribe = options.triggers?.specs.length ? options.triggers.selfSubscribe : undefined;
  const selfSubs = selfSubscribe ? new SelfSubscriptions({ triggers: parts.triggers, ...selfSubscribe, logger }) : undefined;
  const ownTools = selfSubs ? new SelfSubscribeToolSet(selfSubs, parts.own) : parts.own;
  const a2aTools =
    options.a2aAgents && Object.keys(options.a2aAgents).length ? lazyA2aTools(options.a2aAgents, ownTools, logger) : undefined;
  const authorizations = new Map<string, AuthorizationAsk>();
  const calls = connected.operator?.calls;
  const toolSet = new McpToolSet(parts.clients, a2aTools ?? ownTools, {
    optional,
    logger,
    sampling: connected.ledger,
    calls,
    authorizations: (id) => authorizations.get(id),
    filters: toolFilters(options.mcpServers),
  });
  return { toolSet, selfSubs, a2aTools, authorizations };
}
