/**
 * From a validated configuration (the `agentd.json` shape) to agent options: the model, the MCP servers,
 * limits, scope, prices, capability switches, subagents and triggers. `createAgentFromConfig` is
 * `createAgent` over these, so the CLI's `run`, `serve` and `demo` and an embedding program behave the same.
 *
 * The model: the SDK defines the `LanguageModel` interface and the dialect adapters implement it in
 * `@agentd/adapters`, which depends on the SDK — so the SDK cannot import them. The caller passes the
 * factory (`createModel` from `@agentd/adapters`, or its own), or a ready model.
 */
import { resolve as resolvePath } from "node:path";
import { nodeUrl } from "../../_internal/node-builtins.ts";
import type { LocalTools } from "../../tool/local-tool-set.ts";
import type { AgentdConfig } from "../../config/types.generated.ts";
import { nullLogger, type Logger } from "../../log.ts";
import { registerSecretValue } from "../../secret-values.ts";
import type { RunLimits } from "../../loop/budget.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { CapabilityConfig } from "../../mcp/capabilities.ts";
import { elicitationPolicy } from "../../mcp/client/elicitation-policies.ts";
import type { ChildCommand } from "../../supervisor/child-attempt.ts";
import { canonicalOperators } from "../../serve/principal.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { Root } from "../../wire/index.ts";
import type { TriggerPlan } from "../../triggers/runner/trigger-specs.ts";
import type { AgentApprovals, AgentCapabilities, AgentOptions } from "../types/agent-options.ts";
import type { AgentTriggerOptions } from "../live/configured-triggers.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import { jobStoreFromConfig } from "./job-store-from-config.ts";
import type { RunHistoryLimits } from "../../serve/run-registry.ts";
import { checkpointFromConfig } from "./checkpoint-from-config.ts";
import { conversationsFromConfig } from "./conversations-from-config.ts";
import { waitingRunsFromConfig } from "./waiting-runs-from-config.ts";
import { approvalDeskFromConfig } from "./approvals-from-config.ts";
import { samplingFromConfig } from "./sampling-from-config.ts";
import { configReloadSource, type LiveSettings } from "../live/reload.ts";
import { a2aServeOptionsFromConfig, serveOptionsFromConfig } from "./serve-from-config.ts";

/** The model dialects a configuration names. */
export type ModelDialectName = "openai" | "responses" | "anthropic" | "gemini";

/** What a {@link ModelFactory} is asked to build (the settings `createModel` of `@agentd/adapters` takes). */
export interface ModelSettings {
  dialect: ModelDialectName;
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** Where the key came from, or that none was set (never the key): said beside a 401/403. */
  apiKeyHint?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxRetries?: number;
  /** Most bytes read of one answer, streamed or not (the config's `model.maxResponseBytes`; default 64 MiB). */
  maxResponseBytes?: number;
  /** openai: whether the model calls tools natively. */
  supportsTools?: boolean;
  maxTokens?: number;
  /** Extended thinking / reasoning settings (the config's `model.thinking`; docs/configuration.md). */
  thinking?: NonNullable<AgentdConfig["model"]>["thinking"];
  /** Prompt caching (the config's `model.promptCache`). */
  promptCache?: NonNullable<AgentdConfig["model"]>["promptCache"];
  /** responses: continue conversations with `previous_response_id` (the config's `model.previousResponseId`). */
  previousResponseId?: boolean;
  logger?: Logger;
}

/** Builds a model from settings: `createModel` from `@agentd/adapters` is one. */
export type ModelFactory = (settings: ModelSettings) => LanguageModel;

/** Options of {@link createAgentFromConfig} (and {@link agentOptionsFromConfig}). */
export interface AgentFromConfigOptions {
  /** Builds the configured model (`createModel` from `@agentd/adapters`). Required unless `model` is given. */
  createModel?: ModelFactory;
  /** A ready model instead of the configured one (the config's `model` block is then only read for prices). */
  model?: LanguageModel;
  /**
   * Fail now (E_CONFIG_INVALID naming the setting) when the config names no model. Default false: such an
   * agent still serves (status, subagent tools) and refuses runs with the same line.
   */
  requireModel?: boolean;
  /** The model's API key (never in the config file: `AGENT_API_KEY`, `model.apiKeyEnv`, the dialect's variable). */
  apiKey?: string;
  /** Where `apiKey` came from, or that none was set (`ResolvedConfig.apiKeyHint`): said beside a 401/403. */
  apiKeyHint?: string;
  /** Telemetry (default: none). */
  logger?: Logger;
  /** Triggers instead of the config's `triggers` block (e.g. a command line's mode). */
  triggers?: AgentTriggerOptions;
  /** The version the served agent's MCP server reports. */
  version?: string;
  /** OpenTelemetry (see `AgentOptions.telemetry`): the CLI passes `"env"` (on only when OTEL_* names an endpoint). */
  telemetry?: AgentOptions["telemetry"];
  /** The command a subagent child is started with (default: this program with the hidden `__subagent` entry). */
  subagentCommand?: ChildCommand;
  /** Tools defined in code (`tool()`), offered beside the configured MCP servers' (docs/tools.md). */
  tools?: LocalTools;
  /** Who decides in code the calls the config's `approvals` rules hold (docs/approvals.md); absent: a run's own channel, else denied. */
  onApproval?: AgentApprovals["onAsk"];
  /**
   * Build the approval desk where served and triggered runs' questions wait (default true when the config has
   * `approvals`); `agentd run`'s long-running modes, which serve nothing, pass false: nobody could answer there.
   */
  approvalDesk?: boolean;
  /**
   * Reads the configuration again (the same file, flags and environment) for `agent.reload()` and the
   * operator's `agentd/reload`; rejects with E_CONFIG_INVALID on an invalid one. Without it reload is refused.
   */
  /** Where conversations are kept (default: `conversationsFromConfig(config)`, owner `local`). */
  conversations?: AgentOptions["conversations"];
  reloadConfig?: () => Promise<AgentdConfig>;
}

/** The key options hand on to a model. */
const keyOf = (o: Pick<AgentFromConfigOptions, "apiKey" | "apiKeyHint">) => ({
  apiKey: o.apiKey,
  apiKeyHint: o.apiKeyHint,
});

/** The model a configuration names. A missing endpoint is one clear `E_CONFIG_INVALID` line. */
export function modelFromConfig(
  config: AgentdConfig,
  options: { createModel: ModelFactory; apiKey?: string; apiKeyHint?: string; logger?: Logger },
): LanguageModel {
  const m = config.model ?? {};
  const dialect = (m.dialect ?? "openai") as ModelDialectName;
  if (!m.intelligence && dialect === "openai")
    throw new AgentdError(
      "E_CONFIG_INVALID",
      "no model endpoint: set AGENT_INTELLIGENCE (e.g. http://127.0.0.1:11434/v1), --intelligence, or model.intelligence in agentd.json — or try 'agentd demo' for the offline scripted model",
    );
  // No dialect has a model of its own to fall back on: a made-up name ("default") would only come back as
  // the provider's "model not found", or worse, be served by whatever a gateway maps it to.
  if (!m.name)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `no model name: pass --model, set AGENT_MODEL, or set model.name in agentd.json (the ${dialect} dialect has no default model)`,
    );
  // The key goes upstream with every request: a gateway echoing it must not hand it to agentd's callers.
  if (options.apiKey) registerSecretValue(options.apiKey);
  return options.createModel({
    dialect,
    model: m.name,
    baseURL: m.intelligence,
    apiKey: options.apiKey,
    apiKeyHint: options.apiKeyHint,
    headers: m.headers,
    timeoutMs: m.timeout,
    maxRetries: m.maxRetries,
    maxResponseBytes: m.maxResponseBytes,
    supportsTools: m.nativeTools === false ? false : undefined,
    maxTokens: m.maxOutputTokens,
    thinking: m.thinking,
    promptCache: m.promptCache,
    previousResponseId: m.previousResponseId,
    logger: options.logger,
  });
}

/** The run limits a configuration sets. */
export function limitsFromConfig(config: AgentdConfig): RunLimits {
  const l = config.limits ?? {};
  return {
    maxTurns: l.maxTurns,
    maxTokens: l.maxTokens,
    deadlineMs: l.deadline,
    maxCostUsd: l.maxCostUsd,
  };
}

/**
 * The MCP client switches the config's `capabilities` block turns on (tasks, roots, elicitation);
 * everything absent stays off. (Checkpoints are refused by the schema until they are built; sampling needs
 * the model and is the agent's `sampling` option; server notifications and the cron engine are read by
 * serving and the triggers.)
 */
export function capabilitiesFromConfig(config: AgentdConfig, logger?: Logger): CapabilityConfig {
  const c = config.capabilities ?? {};
  const roots = rootsFromConfig(config);
  return {
    tasks: c.tasks || undefined,
    roots: roots.length ? roots : undefined,
    elicitation:
      c.elicitation === "decline"
        ? "decline"
        : c.elicitation === "cancel" || c.elicitation === "defaults"
          ? elicitationPolicy({ policy: c.elicitation }, logger)
          : typeof c.elicitation === "object"
            ? elicitationPolicy(c.elicitation, logger)
            : undefined,
  };
}

/** The configured roots as `file://` roots (paths resolved against the working directory). */
function rootsFromConfig(config: AgentdConfig): Root[] {
  return (config.capabilities?.roots ?? []).map((r) => {
    const uri = r.startsWith("file://") ? r : nodeUrl().pathToFileURL(resolvePath(r)).href;
    return { uri, name: uri.split("/").filter(Boolean).at(-1) ?? uri };
  });
}

/** Whether a configuration names a model (an endpoint, or a dialect that has a default one). */
export const configNamesModel = (config: AgentdConfig): boolean =>
  Boolean(config.model?.intelligence) || (config.model?.dialect !== undefined && config.model.dialect !== "openai");

/** The config's `approvals` block as the agent takes it (durations already in milliseconds). */
function approvalsFromConfig(config: AgentdConfig, options: AgentFromConfigOptions, logger: Logger): AgentApprovals | undefined {
  const a = config.approvals;
  const onAsk = options.onApproval;
  if (!a && !onAsk) return undefined;
  const desk = options.approvalDesk === false ? undefined : approvalDeskFromConfig(config, logger);
  return { rules: a?.rules, timeoutMs: a?.timeout, onTimeout: a?.onTimeout, onAsk, desk, askCaller: a?.askCaller };
}

/** The {@link AgentOptions} a configuration describes, group by group: see the module header. */
export function agentOptionsFromConfig(config: AgentdConfig, options: AgentFromConfigOptions = {}): AgentOptions {
  const logger = options.logger ?? nullLogger;
  const limits = limitsFromConfig(config);
  const model = options.model ?? modelOrUnconfigured(config, options, logger);
  const base = options.triggers ?? configTriggers(config, logger);
  const triggers = { ...base, claims: claimsOf(config, logger) ?? base.claims, selfSubscribe: selfSubscribeFromConfig(config) };
  return {
    model,
    mcpServers: config.mcpServers,
    a2aAgents: config.a2aAgents,
    instructions: config.instructions,
    tools: options.tools,
    subagents: subagentsFromConfig(config, logger, { limits, apiKey: options.apiKey, command: options.subagentCommand }),
    prompts: config.prompts,
    limits: { ...limits, mcpTimeoutMs: config.limits?.mcpTimeout, mcpMaxTotalTimeoutMs: config.limits?.mcpMaxTotalTimeout },
    prices: config.model?.prices,
    scope: config.scope?.allow ? { allow: config.scope.allow } : undefined,
    approvals: approvalsFromConfig(config, options, logger),
    capabilities: agentCapabilitiesFrom(config, model, options, logger),
    triggers: triggers.specs.length ? triggers : undefined,
    serve: {
      version: options.version,
      operators: config.serve?.operators?.length ? canonicalOperators(config.serve.operators, "serve.operators") : undefined,
      // Local bounds, and the fleet's shared history in the store when durability asks for it.
      runHistory: runHistoryOf(config, logger),
      taskSupport: config.serve?.taskSupport,
      a2a: a2aServeOptionsFromConfig(config),
      endpoint: () => serveOptionsFromConfig(config),
    },
    conversations: options.conversations ?? conversationsFromConfig(config, logger),
    durability: {
      checkpoint: checkpointFromConfig(config, logger),
      servedRuns: config.durability
        ? (require("./served-runs-from-config.ts") as typeof import("./served-runs-from-config.ts")).servedRunsFromConfig(config, logger)
        : undefined,
      oauthTokens: config.durability
        ? (require("./token-store-from-config.ts") as typeof import("./token-store-from-config.ts")).tokenStoreFromConfig(config, logger)
        : undefined,
      waitingRuns: waitingRunsFromConfig(config, logger),
    },
    reload: options.reloadConfig
      ? configReloadSource(
          config,
          options.reloadConfig,
          (next) => liveSettingsFromConfig(next, options, logger),
          new Set(options.triggers ? ["triggers"] : []),
        )
      : undefined,
    telemetry: options.telemetry,
    logger,
  };
}

/** The config's `capabilities` block: the MCP client switches, sampling by the agent's model, and the agent's own switches. */
function agentCapabilitiesFrom(
  config: AgentdConfig,
  model: LanguageModel | undefined,
  options: AgentFromConfigOptions,
  logger: Logger,
): AgentCapabilities {
  const c = config.capabilities ?? {};
  // A route is the configured model block with its name (and endpoint, dialect) replaced.
  const sampling = model
    ? samplingFromConfig(config, (route) => {
        if (!options.createModel) throw new AgentdError("E_USAGE", "capabilities.sampling.routes need createModel (from @agentd/adapters)");
        const m = {
          ...config.model,
          name: route.name,
          intelligence: route.intelligence ?? config.model?.intelligence,
          dialect: route.dialect ?? config.model?.dialect,
        };
        return modelFromConfig({ ...config, model: m }, { createModel: options.createModel, ...keyOf(options), logger });
      })
    : undefined;
  return {
    ...capabilitiesFromConfig(config, logger),
    // Spread over the capabilities above: an absent key keeps their elicitation policy.
    ...(c.elicitation === "operator" ? { elicitation: "operator" as const } : {}),
    sampling,
    httpReactivity: c.httpReactivity === true,
    serverNotifications: c.serverNotifications === true,
  };
}

/** `triggers.selfSubscribe`, its servers defaulting to every configured one. */
function selfSubscribeFromConfig(config: AgentdConfig): AgentTriggerOptions["selfSubscribe"] {
  const s = config.triggers?.selfSubscribe;
  if (!s) return undefined;
  return { max: s.max, servers: s.servers ?? Object.keys(config.mcpServers ?? {}), pollIntervalMs: s.pollInterval };
}

/** What a reloaded configuration changes live (reload.ts): instructions, limits, prices, scope, prompts, roots, triggers. */
function liveSettingsFromConfig(config: AgentdConfig, options: AgentFromConfigOptions, logger: Logger): LiveSettings {
  return {
    instructions: config.instructions,
    limits: limitsFromConfig(config),
    prices: config.model?.prices,
    scope: config.scope?.allow ? { allow: config.scope.allow } : undefined,
    prompts: config.prompts,
    roots: rootsFromConfig(config).length ? rootsFromConfig(config) : undefined,
    // Triggers given by the caller (a command line's mode) are not the configuration's to change.
    ...(options.triggers ? {} : { triggers: { ...configTriggers(config, logger), claims: claimsOf(config, logger) } }),
  };
}

/** The config's `triggers` block, validated against its cron engine. */
function configTriggers(config: AgentdConfig, logger: Logger): AgentTriggerOptions {
  // Without a `triggers` block there is nothing to check: the trigger runner and its cron engine stay unloaded.
  const plan: TriggerPlan = config.triggers
    ? (require("../../triggers/runner/trigger-specs.ts") as typeof import("../../triggers/runner/trigger-specs.ts")).triggerSpecsFromConfig(
        config,
      )
    : { specs: [] };
  return {
    specs: plan.specs,
    cron: config.capabilities?.cron,
    jobStore: plan.jobStore ?? jobStoreFromConfig(config, logger),
  };
}

/** The configured model, or none when the config names none (and none is required). */
function modelOrUnconfigured(config: AgentdConfig, options: AgentFromConfigOptions, logger: Logger): LanguageModel | undefined {
  if (!configNamesModel(config) && !options.requireModel) return undefined;
  if (!options.createModel) throw new AgentdError("E_USAGE", "createAgentFromConfig needs createModel (from @agentd/adapters) or a model");
  return modelFromConfig(config, { createModel: options.createModel, ...keyOf(options), logger });
}

/**
 * The root's supervisor when the config has a `subagents` block (`supervisorFromConfig`), else undefined;
 * its modules (the supervisor, the control channel, the children's spawn) load only then. `require`, not
 * `import()`: `createAgentFromConfig` is synchronous.
 */
function subagentsFromConfig(
  config: AgentdConfig,
  logger: Logger,
  options: Parameters<typeof import("./subagents-from-config.ts").supervisorFromConfig>[2],
): Supervisor | undefined {
  if (!config.subagents) return undefined;
  const { supervisorFromConfig } = require("./subagents-from-config.ts") as typeof import("./subagents-from-config.ts");
  return supervisorFromConfig(config, logger, options);
}

// The parts only a `durability` block turns on (run claims, served runs, OAuth tokens above, the fleet's run
// history): without one each is undefined, and their modules (the store's documents, claims, retention, the
// run listing) stay unloaded. `require`, not `import()`: createAgentFromConfig is synchronous.

/** `claimsFromConfig` with a `durability` block, else none. */
function claimsOf(config: AgentdConfig, logger: Logger) {
  if (!config.durability) return undefined;
  return (require("./claims-from-config.ts") as typeof import("./claims-from-config.ts")).claimsFromConfig(config, logger);
}

/** `runHistoryFromConfig`: with `durability.store` the fleet's history too, else the local bounds alone (as it says). */
function runHistoryOf(config: AgentdConfig, logger: Logger): RunHistoryLimits | undefined {
  if (config.durability?.store)
    return (require("./run-history-store.ts") as typeof import("./run-history-store.ts")).runHistoryFromConfig(config, logger);
  const { shared: _shared, ...local } = config.serve?.runHistory ?? {};
  return config.serve?.runHistory ? local : undefined;
}
