/**
 * `createAgentFromConfig`: the agent from the validated `agentd.json` shape — the options mapped group by
 * group (from-config/) and assembled by `createAgent`. At the top of `agent/`, beside `createAgent`, because
 * it needs both.
 */
import type { AgentdConfig } from "../config/types.generated.ts";
import { createAgent } from "./create-agent.ts";
import type { Agent } from "./agent-types.ts";
import { type AgentFromConfigOptions, agentOptionsFromConfig } from "./from-config/from-config.ts";

/**
 * `createAgent` from the validated `agentd.json` shape: see the module header.
 *
 * Example:
 * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#createAgentFromConfig}
 */
export function createAgentFromConfig(config: AgentdConfig, options: AgentFromConfigOptions = {}): Agent {
  return createAgent(agentOptionsFromConfig(config, options));
}
