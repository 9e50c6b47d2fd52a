/**
 * What a reload may change while an agent runs (its live settings and triggers) and what a reload reports:
 * the agent's option types name them, so they sit here, below the rooms that apply them (live/).
 */
import type { ModelPrices, RunLimits } from "../../loop/budget.ts";
import type { RunScope } from "../../loop/scope.ts";
import type { ServedPrompt } from "../../serve/served-prompts.ts";
import type { RunClaims } from "../../store/run-claims.ts";
import type { JobStore } from "../../triggers/index.ts";
import type { CronEngine, TriggerSpec } from "../../triggers/runner/trigger-specs.ts";
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Root } from "../../wire/index.ts";

/** The triggers of an agent (`AgentOptions.triggers`). */
export interface AgentTriggerOptions {
  specs: readonly TriggerSpec[];
  /** The cron engine: `"utc"` (5-field UTC, the default) or `"timezones"` (time zones, DST, catch-up, job store). */
  cron?: CronEngine;
  /** Where schedules keep their last fire (time-zone cron only): a directory path or a {@link JobStore}. */
  jobStore?: string | JobStore;
  /** Claim each run id in a store before running it, so replicas run each event once (docs/durability.md). */
  claims?: RunClaims;
  /**
   * Runs may subscribe the agent to resources themselves (tools `agent.subscribe`, `agent.unsubscribe`,
   * `agent.subscriptions`). Absent: the tools are not offered.
   */
  selfSubscribe?: { max?: number; servers?: string[]; pollIntervalMs?: number };
}

/** The settings a reload may change while the agent runs. */
export interface LiveSettings {
  instructions?: string;
  limits?: RunLimits;
  prices?: ModelPrices;
  scope?: RunScope;
  /** The served prompts (undefined: none configured). */
  prompts?: Record<string, ServedPrompt>;
  /** The roots told to MCP servers that were told roots (undefined: none configured). */
  roots?: Root[];
  /** The triggers (undefined: the agent's triggers do not come from the reloaded source). */
  triggers?: AgentTriggerOptions;
}

/** What a reload source answers: the new live settings and the keys that changed but need a restart. */
export interface ReloadPlan {
  live: LiveSettings;
  restartRequired: string[];
  /** The validated configuration, for listeners that read more of it (e.g. served prompts). */
  config?: AgentdConfig;
}

/** What a reload did. */
export interface ReloadReport {
  /** Live settings that changed and now apply (`instructions`, `limits`, `prices`, `scope`, `prompts`, `roots`, `triggers`). */
  changed: string[];
  /** Trigger ids added, removed, or kept but changed (every trigger is re-armed when any changed). */
  triggers?: { added: string[]; removed: string[]; changed: string[] };
  /** Top-level configuration keys that changed but apply only after a restart. */
  restartRequired: string[];
}
