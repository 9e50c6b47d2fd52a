/**
 * `agentd serve` runs the configured triggers too (every kind: subscriptions, schedules, the interval),
 * beside the self-MCP surface. Their runs are recorded in the self-MCP's run registry (so they show in
 * `agent://status` and `agent://runs/{runId}`, and serve's drain waits for them), each trigger's state is
 * the `triggers` field of `agent://status`, and a change of it notifies that resource's subscribers.
 * Nothing goes to stdout (in `serve --stdio` it is the MCP channel).
 */
import {
  AgentdError,
  AgentTriggers,
  triggerSpecsFromConfig,
  type Agent,
  type AgentdConfig,
  type RunTriggerTags,
  type SelfMcp,
  type TriggerRunData,
  type TriggerStatus,
} from "@agentd/sdk";
import { FileJobStore } from "@agentd/sdk/triggers";

/** The configured triggers of a serving agentd. */
export interface ServeTriggers {
  status(): TriggerStatus[];
  /** Start them (after serving began). A failure is logged; serving goes on, `agent://status` shows it. */
  start(self: SelfMcp): Promise<void>;
  /** Stop taking triggers; in-flight runs finish for `graceMs`, then are cancelled. */
  stop(graceMs: number): Promise<void>;
}

/**
 * The configured triggers, or undefined when there are none. Validates now (before serving): a bad
 * trigger, or triggers without a model, is `E_CONFIG_INVALID`.
 */
export function createServeTriggers(options: { config: AgentdConfig; agent: Agent | undefined; tags: RunTriggerTags }): ServeTriggers | undefined {
  const { config, agent, tags } = options;
  const plan = triggerSpecsFromConfig(config);
  if (plan.specs.length === 0) return undefined;
  if (!agent) throw new AgentdError("E_CONFIG_INVALID", "triggers are configured but no model is: set AGENT_INTELLIGENCE or model.intelligence");
  const cron = config.capabilities?.cron ?? "v1";
  const instructions = new Map<string, string>();
  let registry: SelfMcp["registry"] | undefined;
  const triggers = new AgentTriggers({
    agent,
    specs: plan.specs,
    cron,
    ...(plan.jobStore !== undefined ? { jobStore: new FileJobStore(plan.jobStore) } : {}),
    logger: tags.logger,
    onRunStart: (runId, trigger, instruction) => {
      tags.tag(runId, trigger);
      instructions.set(runId, instruction);
      registry?.start(runId, instruction);
    },
    onRunSettled: (runId) => tags.untag(runId),
  });
  triggers.on("run-end", ({ runId, outcome }) => {
    if (!registry || !instructions.delete(runId)) return;
    const data = (outcome.data ?? {}) as TriggerRunData;
    const r = data.result;
    if (r && (outcome.status === "ok" || outcome.status === "already-done"))
      registry.succeed(runId, {
        stopReason: r.stopReason,
        usage: r.usage,
        turns: r.turns,
        toolCalls: r.toolCalls,
        ...(r.text !== undefined ? { text: r.text } : {}),
        ...(r.output !== undefined ? { output: r.output } : {}),
      });
    else registry.fail(runId, { code: data.code ?? "E_RUN_FAILED", message: outcome.message ?? outcome.status }, data.usage);
  });
  return {
    status: () => triggers.status(),
    async start(self) {
      registry = self.registry;
      triggers.onChange(() => void self.server.notifyResourceUpdated("agent://status"));
      try {
        await triggers.start();
      } catch (error) {
        tags.logger.error("triggers.failed", { error: error instanceof Error ? error.message : String(error) });
      }
    },
    stop: (graceMs) => triggers.stop({ graceMs }),
  };
}
