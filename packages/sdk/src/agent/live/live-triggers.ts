/**
 * An agent's triggers and live settings: what a reload may change (the settings each run reads, the served
 * prompts, the roots told to servers, and the triggers), with the checkpoint restored by the first
 * triggers only — a reload's triggers are not restored again (their self-arranged subscriptions are
 * dropped with the triggers they replaced, as without a checkpoint).
 */
import type { Logger } from "../../log.ts";
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import type { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import type { SelfSubscriptions } from "../../triggers/runner/self-subscriptions.ts";
import type { TriggerAgent } from "../../triggers/runner/trigger-runner.ts";
import type { AgentLimits, AgentOptions } from "../agent-options.ts";
import type { RunLimits } from "../../loop/budget.ts";
import { type AgentCheckpoint, checkpointHooks } from "../checkpoint/agent-checkpoint.ts";
import { LiveConfig } from "./live-config.ts";
import type { SelfHost } from "../serving/serve-agent.ts";
import { createAgentTriggers } from "./configured-triggers.ts";

/** What the triggers and live settings reach of their agent. */
export interface LiveTriggerParts {
  agent: TriggerAgent;
  clients: ReadonlyMap<string, ManagedMcpClient>;
  host: () => SelfHost | undefined;
  /** Endpoints being served: triggers added to an agent that had none are armed when it serves. */
  serving: () => number;
  /** The checkpoint the first triggers restore (with triggers configured). */
  checkpoint: AgentCheckpoint | undefined;
  selfSubs: SelfSubscriptions | undefined;
  supervisor: Supervisor | undefined;
  logger: Logger;
}

/** A run's budgets of the agent's limits (the MCP timeouts are the connections'). */
const runLimitsOf = ({ mcpTimeoutMs: _timeout, mcpMaxTotalTimeoutMs: _total, ...run }: AgentLimits): RunLimits => run;

/** See the module header. */
export function liveTriggers(options: AgentOptions, parts: LiveTriggerParts): LiveConfig {
  const { checkpoint, logger } = parts;
  let checkpointArmed = false;
  const config: LiveConfig = new LiveConfig({
    settings: {
      instructions: options.instructions,
      limits: options.limits ? runLimitsOf(options.limits) : undefined,
      prices: options.prices,
      scope: options.scope,
      prompts: options.prompts,
      roots: options.capabilities?.roots || undefined,
    },
    triggers: options.triggers,
    // Served prompts are replaced on the one served MCP server (every session gets prompts/list_changed);
    // roots on every connected server that was told roots (each gets roots/list_changed).
    applyLive: async (settings, changed) => {
      if (changed.has("prompts")) parts.host()?.self.prompts?.set(settings.prompts ?? {});
      if (changed.has("roots") && settings.roots) {
        const roots = settings.roots;
        await Promise.all(
          [...parts.clients.values()].map((c) =>
            c
              .setRoots(roots)
              .catch((e: unknown) => logger.warn("mcp.roots_update_failed", { server: c.name, error: (e as Error).message })),
          ),
        );
      }
    },
    build: (o) => {
      const first = !checkpointArmed;
      checkpointArmed = true;
      return createAgentTriggers({
        ...o,
        agent: parts.agent,
        logger,
        host: parts.host,
        ...(checkpoint && first
          ? checkpointHooks(checkpoint, () => ({
              specs: o.specs,
              triggers: config.triggers as AgentTriggers,
              selfSubscriptions: parts.selfSubs,
              supervisor: parts.supervisor,
            }))
          : {}),
      });
    },
    source: options.reload,
    hasModel: options.model !== undefined,
    // Triggers added to an agent that had none are armed when it serves (as `agentd serve` arms them).
    armNew: (old) => old?.isStarted === true || (old === undefined && parts.serving() > 0),
    onTriggers: (t) => {
      const h = parts.host();
      if (h) t.onChange(() => void h.self.server.notifyResourceUpdated("agent://status"));
    },
    logger,
  });
  return config;
}
