/**
 * The subagent and `serve: true` tools on the MCP surface an agent serves: apart from agent-subagents.ts so
 * that only an agent that serves loads the MCP registration of its own tools and of the subagent surface.
 */
import type { ServedMcpOptions } from "../../serve/served-mcp.ts";
import { registerSubagentSurface } from "../../supervisor/mcp-surface.ts";
import { registerLocalTools } from "../../tool/serve-local-tools.ts";
import type { AgentOptions } from "../types/agent-options.ts";
import type { OwnTools } from "./agent-subagents.ts";

/** What the served MCP surface offers besides `agent.run`: the subagent tools and the `serve: true` tools. */
export function servedOwnTools(
  options: Pick<AgentOptions, "subagents">,
  localTools: OwnTools["localTools"],
): Pick<ServedMcpOptions, "extend"> {
  const { subagents } = options;
  if (!subagents && !localTools?.size) return {};
  return {
    extend: (server, _runs, access) => {
      if (localTools) registerLocalTools(server, localTools);
      if (subagents) registerSubagentSurface(server, subagents, access);
    },
  };
}
