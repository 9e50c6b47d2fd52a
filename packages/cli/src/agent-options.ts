/**
 * What the CLI hands the SDK besides the configuration: the dialect adapters' model factory, the API key
 * resolved from the environment, and stderr telemetry. (The SDK cannot import `@agentd/adapters`, which
 * depends on it; see `createAgentFromConfig`.)
 */
import { createModel } from "@agentd/adapters";
import type { AgentFromConfigOptions, Logger, ModelFactory, ResolvedConfig } from "@agentd/sdk";
import { reportConfigNotes } from "./config-report.ts";

/**
 * The options of `createAgentFromConfig` for a resolved configuration. Servers of `--mcp-config` files that
 * were left out (a variable only the editor can expand) and the keys of their entries that were not taken
 * are told here (`reportConfigNotes`), as the agent starts without them.
 */
export function agentOptions(
  resolved: Pick<ResolvedConfig, "apiKey" | "apiKeyHint" | "skippedServers" | "foreignKeysNotTaken" | "renamedServers">,
  logger: Logger,
  extra: AgentFromConfigOptions = {},
): AgentFromConfigOptions & { createModel: ModelFactory } {
  reportConfigNotes(resolved, logger);
  return {
    createModel,
    apiKey: resolved.apiKey,
    apiKeyHint: resolved.apiKeyHint,
    logger,
    telemetry: "env",
    ...extra,
  };
}
