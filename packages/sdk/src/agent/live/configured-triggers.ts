import { FileJobStore } from "../../triggers/file-job-store.ts";
import { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import type { Logger } from "../../log.ts";
import type { TriggerAgent, TriggerRunData } from "../../triggers/runner/trigger-runner.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";

export type { AgentTriggerOptions } from "../types/live-settings.ts";
import type { AgentTriggerOptions } from "../types/live-settings.ts";

/** Build the configured triggers; `registry()` is the served agent's run history once it serves. */
export function buildConfiguredTriggers(
  options: AgentTriggerOptions & {
    agent: TriggerAgent;
    logger: Logger;
    registry: () => RunRegistry | undefined;
    beforeStart?: () => Promise<void>;
    onTakeover?: (runId: string, previousHolder: string) => Promise<void>;
  },
): AgentTriggers {
  const { registry: historyOf } = options;
  const cron = options.cron ?? "utc";
  const jobStore = typeof options.jobStore === "string" ? new FileJobStore(options.jobStore) : options.jobStore;
  const triggers = new AgentTriggers({
    agent: options.agent,
    specs: options.specs,
    cron,
    jobStore: cron === "timezones" ? jobStore : undefined,
    logger: options.logger,
    claims: options.claims,
    beforeStart: options.beforeStart,
    onTakeover: options.onTakeover,
    onRunStart: (runId, trigger, instruction) => {
      historyOf()?.start(runId, instruction, undefined, { via: "trigger", trigger });
    },
  });
  triggers.on("run-end", ({ runId, outcome }) => {
    const registry = historyOf();
    // Only a record this run started is finished here (a remembered run's old record stays as it was); a run
    // that stopped to wait for a decision is recorded waiting (its events said so), and ends when resumed.
    if (registry?.get(runId)?.status !== "running") return;
    const data = (outcome.data ?? {}) as TriggerRunData;
    const r = data.result;
    if (r?.status === "waiting") return registry.wait(runId, r);
    if (r && (outcome.status === "ok" || outcome.status === "already-done"))
      registry.succeed(runId, {
        stopReason: r.stopReason,
        usage: r.usage,
        turns: r.turns,
        toolCalls: r.toolCalls,
        text: r.text,
        output: r.output,
        conversationId: r.conversationId, // a trigger naming a conversation: its record links it
      });
    else registry.fail(runId, { code: data.code ?? "E_RUN_FAILED", message: outcome.message ?? outcome.status }, data.usage);
  });
  return triggers;
}
