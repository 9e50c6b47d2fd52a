/**
 * An agent's triggers: the config's `triggers` block (and the CLI's flags) as specs, built into one
 * trigger router whose runs go through the agent with stable run ids; per-trigger status for
 * `agent://status`; telemetry tagged with the trigger; the documented "already done" paths.
 */
export {
  triggerSpecsFromConfig,
  checkCronEngine,
  validateTriggerSpec,
  subscriptionTriggerId,
  cronTriggerId,
  uniqueIds,
  INTERVAL_TRIGGER_ID,
  type CronEngine,
  type TriggerSpec,
  type SubscriptionSpec,
  type CronSpec,
  type IntervalSpec,
  type TriggerPlan,
} from "./trigger-specs.ts";
export {
  createTriggerRunner,
  isAlreadyDone,
  ALREADY_DONE,
  type TriggerAgent,
  type TriggerRunData,
  type TriggerRunner,
  type TriggerRunnerOptions,
} from "./trigger-runner.ts";
export { AgentTriggers, type AgentTriggersOptions, type TriggersStarted } from "./agent-triggers.ts";
export { TriggerStatusTable, type TriggerStatus, type TriggerState } from "./trigger-status.ts";
export { createRunTriggerTags, type TriggerOfRun } from "./run-trigger-tags.ts";
