/**
 * What the CLI hands the SDK besides the configuration: the dialect adapters' model factory, the API key
 * resolved from the environment, and stderr telemetry. (The SDK cannot import `@agentd/adapters`, which
 * depends on it; see `createAgentFromConfig`.)
 */
import { createModel } from "@agentd/adapters";
import type { AgentFromConfigOptions, Logger, ModelFactory, ResolvedConfig } from "@agentd/sdk";

/** The options of `createAgentFromConfig` for a resolved configuration. */
export function agentOptions(resolved: Pick<ResolvedConfig, "apiKey" | "apiKeyHint">, logger: Logger, extra: AgentFromConfigOptions = {}): AgentFromConfigOptions & { createModel: ModelFactory } {
  return {
    createModel,
    ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}),
    ...(resolved.apiKeyHint ? { apiKeyHint: resolved.apiKeyHint } : {}),
    logger,
    telemetry: "env",
    ...extra,
  };
}
