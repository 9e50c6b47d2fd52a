/**
 * From a resolved configuration to a running agent: the model from `@agentd/adapters`, the MCP servers,
 * limits, scope and prices. Shared by `run`, `serve` and `demo` so they behave the same.
 */
import { createModel, type ModelDialect } from "@agentd/adapters";
import {
  AgentdError,
  createAgent,
  SubagentToolSet,
  type Agent,
  type CapabilityConfig,
  type AgentdConfig,
  type LanguageModel,
  type Logger,
  type RunLimits,
  type Supervisor,
} from "@agentd/sdk";
import { supervisorFromConfig } from "./subagent/supervisor-from-config.ts";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";

/** What the model needs besides the config file's `model` block. */
export interface ModelSecrets {
  apiKey?: string;
}

/** Build the model a configuration names. A missing endpoint is a clear usage error. */
export function modelFromConfig(config: AgentdConfig, secrets: ModelSecrets, logger: Logger): LanguageModel {
  const m = config.model ?? {};
  const dialect = (m.dialect ?? "openai") as ModelDialect;
  if (!m.intelligence && dialect === "openai")
    throw new AgentdError(
      "E_CONFIG_INVALID",
      "no model endpoint: set AGENT_INTELLIGENCE (e.g. http://127.0.0.1:11434/v1), --intelligence, or model.intelligence in agentd.json — or try 'agentd demo' for the offline scripted model",
    );
  if (dialect === "gemini" && config.capabilities?.gemini === false)
    throw new AgentdError("E_CONFIG_INVALID", "the gemini dialect is switched off (capabilities.gemini: false, seed D11): use openai or anthropic, or remove the switch");
  if (!m.name && dialect !== "openai")
    throw new AgentdError("E_CONFIG_INVALID", `the ${dialect} dialect needs a model name: set AGENT_MODEL, --model, or model.name`);
  return createModel({
    dialect,
    model: m.name ?? "default",
    ...(m.intelligence ? { baseURL: m.intelligence } : {}),
    ...(secrets.apiKey ? { apiKey: secrets.apiKey } : {}),
    ...(m.headers ? { headers: m.headers } : {}),
    ...(m.timeout !== undefined ? { timeoutMs: m.timeout } : {}),
    ...(m.maxRetries !== undefined ? { maxRetries: m.maxRetries } : {}),
    ...(m.nativeTools === false ? { supportsTools: false } : {}),
    ...(m.maxOutputTokens ? { maxTokens: m.maxOutputTokens } : {}),
    ...(m.thinking ? { thinking: m.thinking } : {}),
    ...(m.promptCache ? { promptCache: m.promptCache } : {}),
    logger,
  });
}

/** The run limits a configuration sets. */
export function limitsFromConfig(config: AgentdConfig): RunLimits {
  const l = config.limits ?? {};
  return {
    ...(l.maxTurns !== undefined ? { maxTurns: l.maxTurns } : {}),
    ...(l.maxTokens !== undefined ? { maxTokens: l.maxTokens } : {}),
    ...(l.deadline !== undefined ? { deadlineMs: l.deadline } : {}),
    ...(l.maxCostUsd !== undefined ? { maxCostUsd: l.maxCostUsd } : {}),
  };
}

/**
 * The MCP client switches the config's `capabilities` block turns on (D1 tasks, D3 roots, D4 elicitation);
 * everything absent stays the seed's v1 fallback. (D2 sampling and D8 checkpoint are refused by the schema
 * until they are built; D9 and D10 are read by `serve` and the modes.)
 */
export function capabilityConfigFrom(config: AgentdConfig): CapabilityConfig {
  const c = config.capabilities ?? {};
  const roots = (c.roots ?? []).map((r) => {
    const uri = r.startsWith("file://") ? r : pathToFileURL(resolvePath(r)).href;
    return { uri, name: uri.split("/").filter(Boolean).at(-1) ?? uri };
  });
  return {
    ...(c.tasks ? { tasks: true } : {}),
    ...(roots.length ? { roots } : {}),
    ...(c.elicitation === "decline" ? { elicitation: "decline" as const } : {}),
    ...(c.elicitation === "cancel" ? { elicitation: async () => ({ action: "cancel" as const }) } : {}),
  };
}

/** Build the agent a configuration describes (with `supervisor` when the config turns subagents on). */
export function agentFromConfig(config: AgentdConfig, model: LanguageModel, logger: Logger): Agent & { supervisor?: Supervisor } {
  const supervisor = supervisorFromConfig(config, logger, { limits: limitsFromConfig(config) }); // only with a `subagents` block
  const agent = createAgent({
    model,
    ...(config.mcpServers ? { mcpServers: config.mcpServers } : {}),
    ...(config.instructions !== undefined ? { instructions: config.instructions } : {}),
    limits: limitsFromConfig(config),
    ...(config.model?.prices ? { prices: config.model.prices } : {}),
    ...(config.scope?.allow ? { scope: { allow: config.scope.allow } } : {}),
    ...(supervisor ? { tools: new SubagentToolSet(supervisor) } : {}),
    capabilities: capabilityConfigFrom(config),
    telemetry: "env", // OpenTelemetry only when OTEL_* names an endpoint (imported lazily)
    ...(config.capabilities?.httpReactivity === false ? { httpReactivity: false } : {}),
    logger,
  });
  return supervisor ? withSubagents(agent, supervisor) : agent;
}

/**
 * The agent, closing its subagent tree first: `close()` cancels every child (cancel, SIGTERM, SIGKILL
 * within the grace) before the MCP connections go, so no process outlives the agent.
 */
export function withSubagents(agent: Agent, supervisor: Supervisor): Agent & { supervisor: Supervisor } {
  const close = async () => {
    await supervisor.shutdown();
    await agent.close();
  };
  return { ...agent, supervisor, close, [Symbol.asyncDispose]: close };
}
