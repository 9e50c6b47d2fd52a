/**
 * The per-server prompts switch (`mcpServers.X.prompts`, default true): off, agentd uses no prompt of that
 * server — `run --prompt` and `agentd mcp X prompts|get-prompt|complete` refuse before starting it, and its
 * connections never switch prompts on (so its `prompts/list_changed` is ignored).
 */
import { AgentdError } from "@agentd/sdk";

/** The usage error of a server whose prompts are switched off in its entry, or undefined. */
export function promptsSwitchedOff(server: string, entry: { prompts?: boolean } | undefined): AgentdError | undefined {
  return entry?.prompts === false
    ? new AgentdError(
        "E_USAGE",
        `prompts of MCP server '${server}' are switched off (mcpServers.${server}.prompts: false); remove the switch to use them`,
      )
    : undefined;
}
