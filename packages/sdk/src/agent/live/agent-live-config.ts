/**
 * An agent's live configuration: what a reload may change (the settings each run reads, the served
 * prompts, the roots told to servers, and the triggers), with the checkpoint restored by the first
 * triggers only — a reload's triggers are not restored again (their self-arranged subscriptions are
 * dropped with the triggers they replaced, as without a checkpoint). Built after the runs (the triggers
 * run through the agent's `run`) and before serving: the served agent registers itself (`attach`) when it
 * first serves, so served prompts follow a reload and triggered runs are recorded in its history.
 */
import type { Logger } from "../../log.ts";
import type { ManagedMcpClient } from "../../mcp/client/managed/managed-client.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import type { ServedPrompt } from "../../serve/served-prompts.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import type { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import type { SelfSubscriptions } from "../../triggers/runner/self-subscriptions.ts";
import type { TriggerAgent } from "../../triggers/runner/trigger-runner.ts";
import type { AgentLimits, AgentOptions } from "../types/agent-options.ts";
import type { RunLimits } from "../../loop/budget.ts";
import type { AgentCheckpoint } from "../checkpoint/agent-checkpoint.ts";
import { LiveConfig } from "./live-config.ts";
import type { LiveSettings } from "./reload.ts";

/** What the live configuration reaches of the served agent once it serves (it registers itself). */
export interface ServedForLive {
  /** Endpoints being served: triggers added to an agent that had none are armed when it serves. */
  readonly endpoints: number;
  /** The served run history: triggered runs are recorded in it. */
  readonly registry: RunRegistry;
  /** Replace the served prompts (every session hears `prompts/list_changed`). */
  setPrompts(prompts: Record<string, ServedPrompt>): void;
  /** Tell `agent://status` subscribers it changed. */
  notifyStatus(): void;
}

/** What the live configuration reaches of its agent, all built before it. */
export interface LiveConfigParts {
  agent: TriggerAgent;
  clients: ReadonlyMap<string, ManagedMcpClient>;
  /** Where the runs read the settings (a reload replaces `current`). */
  settings: { current: Omit<LiveSettings, "triggers"> };
  /** The checkpoint the first triggers restore (with triggers configured). */
  checkpoint: AgentCheckpoint | undefined;
  selfSubs: SelfSubscriptions | undefined;
  supervisor: Supervisor | undefined;
  logger: Logger;
}

/** The live configuration, and where the served agent registers itself. */
export interface AgentLiveConfig {
  config: LiveConfig;
  /** The served agent, when it first serves. */
  attach(served: ServedForLive): void;
}

/** A run's budgets of the agent's limits (the MCP timeouts are the connections'). */
const runLimitsOf = ({ mcpTimeoutMs: _timeout, mcpMaxTotalTimeoutMs: _total, ...run }: AgentLimits): RunLimits => run;

/** The settings an agent starts with (what a reload may change, triggers aside). */
export function initialSettings(options: AgentOptions): Omit<LiveSettings, "triggers"> {
  return {
    instructions: options.instructions,
    limits: options.limits ? runLimitsOf(options.limits) : undefined,
    prices: options.prices,
    scope: options.scope,
    prompts: options.prompts,
    roots: options.capabilities?.roots || undefined,
  };
}

/** See the module header. */
export function createLiveConfig(options: AgentOptions, parts: LiveConfigParts): AgentLiveConfig {
  const { checkpoint, logger } = parts;
  let checkpointArmed = false;
  let served: ServedForLive | undefined;
  const config: LiveConfig = new LiveConfig({
    settings: parts.settings,
    triggers: options.triggers,
    // Served prompts are replaced on the one served MCP server (every session gets prompts/list_changed);
    // roots on every connected server that was told roots (each gets roots/list_changed).
    applyLive: async (settings, changed) => {
      if (changed.has("prompts")) served?.setPrompts(settings.prompts ?? {});
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
      // Loaded here, synchronously, only for an agent with triggers: the trigger runner, its sources and the
      // cron engine are none of a one-shot run's start-up (`require` keeps them in a chunk of their own).
      const { buildConfiguredTriggers } = require("./configured-triggers.ts") as typeof import("./configured-triggers.ts");
      return buildConfiguredTriggers({
        ...o,
        agent: parts.agent,
        logger,
        registry: () => served?.registry,
        ...(checkpoint && first
          ? (require("../checkpoint/agent-checkpoint.ts") as typeof import("../checkpoint/agent-checkpoint.ts")).checkpointHooks(
              checkpoint,
              () => ({
                specs: o.specs,
                triggers: config.triggers as AgentTriggers,
                selfSubscriptions: parts.selfSubs,
                supervisor: parts.supervisor,
              }),
            )
          : {}),
      });
    },
    source: options.reload,
    hasModel: options.model !== undefined,
    // Triggers added to an agent that had none are armed when it serves (as `agentd serve` arms them).
    armNew: (old) => old?.isStarted === true || (old === undefined && (served?.endpoints ?? 0) > 0),
    onTriggers: (t) => {
      if (served) t.onChange(() => served?.notifyStatus());
    },
    logger,
  });
  return {
    config,
    attach: (s) => {
      served = s;
    },
  };
}
