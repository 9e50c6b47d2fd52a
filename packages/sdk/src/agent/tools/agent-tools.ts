/**
 * The tool set a run is offered: every connected server's tools as `server/tool`, then the agent's own
 * (agent-subagents.ts), the self-subscription tools when runs may subscribe the agent themselves, and
 * the remote A2A agents as `a2a:NAME` — each set handing on to the next for names it does not know.
 */
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import type { Logger } from "../../log.ts";
import type { ToolSet } from "../../loop/tools.ts";
import { lazyA2aTools, type LazyA2aTools } from "../../a2a/client/tools.ts";
import type { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import type { SelfSubscriptions } from "../../triggers/runner/self-subscriptions.ts";
import type { AgentOptions } from "../types/agent-options.ts";
import type { AgentConnections } from "../connections/agent-connections.ts";
import type { InFlightRuns } from "../connections/in-flight-runs.ts";
import { McpToolSet } from "./mcp-tool-set.ts";
import { toolFilters } from "./server-tool-filter.ts";

/** The tool set, and the parts of it the agent reaches later. */
export interface AgentTools {
  toolSet: McpToolSet;
  /** Runs' self-arranged subscriptions (with `triggers.selfSubscribe`). */
  selfSubs: SelfSubscriptions | undefined;
  /** The A2A tools, settled when the agent closes. */
  a2aTools: LazyA2aTools | undefined;
  /** The live configuration registers itself once built: the self-subscription tools act on its current triggers. */
  attachTriggers(live: { readonly triggers: AgentTriggers | undefined }): void;
}

/** See the module header. The triggers are built later: they register themselves (`attachTriggers`). */
export function agentTools(
  options: AgentOptions,
  parts: {
    clients: ReadonlyMap<string, ManagedMcpClient>;
    own: ToolSet | undefined;
    connected: AgentConnections;
    /** The runs in flight: a call's run answers for its authorizations and takes its sampling. */
    runs: InFlightRuns;
    logger: Logger;
  },
): AgentTools {
  const { logger, connected } = parts;
  const optional = new Set(Object.entries(options.mcpServers ?? {}).flatMap(([name, c]) => (c.required === false ? [name] : [])));
  const selfSubscribe = options.triggers?.specs.length ? options.triggers.selfSubscribe : undefined;
  let live: { readonly triggers: AgentTriggers | undefined } | undefined;
  const selfSubs = selfSubscribe ? selfSubscriptions({ triggers: () => live?.triggers, ...selfSubscribe, logger }) : undefined;
  const ownTools = selfSubs ? selfSubscribeTools(selfSubs, parts.own) : parts.own;
  const a2aTools =
    options.a2aAgents && Object.keys(options.a2aAgents).length ? lazyA2aTools(options.a2aAgents, ownTools, logger) : undefined;
  const calls = connected.operator?.calls;
  const toolSet = new McpToolSet(parts.clients, a2aTools ?? ownTools, {
    optional,
    logger,
    sampling: connected.ledger,
    calls,
    runs: parts.runs,
    filters: toolFilters(options.mcpServers),
  });
  return {
    toolSet,
    selfSubs,
    a2aTools,
    attachTriggers: (l) => {
      live = l;
    },
  };
}

// The self-subscription tools, loaded only for an agent whose triggers offer them (`require`: createAgent is
// synchronous; an agent without triggers loads none of the trigger runner).
type SelfSubscriptionsModule = typeof import("../../triggers/runner/self-subscriptions.ts");
type SelfSubscribeToolsModule = typeof import("../../triggers/runner/self-subscribe-tools.ts");

/** A new {@link SelfSubscriptions}, its module loaded on the first call. */
const selfSubscriptions = (...a: ConstructorParameters<SelfSubscriptionsModule["SelfSubscriptions"]>): SelfSubscriptions =>
  new (require("../../triggers/runner/self-subscriptions.ts") as SelfSubscriptionsModule).SelfSubscriptions(...a);

/** The self-subscribe tool set over `own`, its module loaded on the first call. */
const selfSubscribeTools = (...a: ConstructorParameters<SelfSubscribeToolsModule["SelfSubscribeToolSet"]>): ToolSet =>
  new (require("../../triggers/runner/self-subscribe-tools.ts") as SelfSubscribeToolsModule).SelfSubscribeToolSet(...a);
