/**
 * `@agentd/sdk/config`: the `agentd.json` shape as declared types (`AgentdConfig` and its parts), reading and
 * checking a file (`parseConfig`, `readConfigFile`), resolving flags > environment > file (`resolveConfig`),
 * durations, and which environment variable holds a dialect's API key. The valibot schema that checks a file
 * is internal; its output types are declared in `types.generated.ts` (generated from it, checked equal to it).
 *
 * @module @agentd/sdk/config
 */
export type {
  AgentdConfig,
  ModelConfig,
  McpServerConfig,
  StdioServerConfig,
  HttpServerConfig,
  McpServerOAuthConfig,
  McpServerToolsConfig,
  SamplingConfig,
  RemoteA2aAgentConfig,
  LimitsConfig,
  ScopeConfig,
  TriggersConfig,
  SubscriptionTriggerConfig,
  ScheduleTriggerConfig,
  IntervalTriggerConfig,
  ServeConfig,
  CapabilitiesConfig,
  DurabilityConfig,
  PromptConfig,
  PromptArgumentConfig,
  PromptMessageConfig,
} from "./types.generated.ts";
export { parseConfig, runIdFrom, DEFAULT_CONFIG_FILE, type ConfigOverrides, type ResolvedConfig } from "./parse-config.ts";
export { readConfigFile, resolveConfig, overridesFromFlags } from "./load.ts";
export { parseDuration, durationProblem, formatDuration, DURATION_FORMS } from "./duration.ts";
export { apiKeyVariables, chooseApiKey, DIALECT_API_KEY_VARIABLES, type ApiKeyChoice } from "./api-key.ts";
