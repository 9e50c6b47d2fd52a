/**
 * The tools an agent offers of its own besides the MCP servers': the subagent tools of its supervisor
 * (`subagent_*`), or a hand-written ToolSet in their place, plus tools made by `tool()` — and the same
 * subagent and `serve: true` tools on the MCP surface it serves (served-own-tools.ts, loaded when it serves). The supervisor's tree is stopped by
 * `close()` (agent-lifecycle.ts, through the assembly's release).
 */
import type { ToolSet } from "../../loop/tools.ts";
import { LocalToolSet, namedLocalTools, type LocalTools } from "../../tool/local-tool-set.ts";
import type { LocalTool } from "../../tool/tool.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentOptions } from "../types/agent-options.ts";

/** A hand-written ToolSet (`{ list, call }`), as opposed to tools made by `tool()`. */
const isToolSet = (tools: AgentOptions["tools"]): tools is ToolSet =>
  tools !== undefined &&
  !Array.isArray(tools) &&
  typeof (tools as ToolSet).list === "function" &&
  typeof (tools as ToolSet).call === "function";

/** The agent's own tools: those made by `tool()` by name, and the tool set they and the subagent tools make. */
export interface OwnTools {
  localTools: Map<string, LocalTool> | undefined;
  tools: ToolSet | undefined;
}

/** See the module header. Throws E_USAGE for a ToolSet given with subagents (both would be the extra tool set). */
export function ownTools(options: Pick<AgentOptions, "tools" | "subagents">): OwnTools {
  const customToolSet = isToolSet(options.tools) ? options.tools : undefined;
  if (customToolSet && options.subagents)
    throw new AgentdError(
      "E_USAGE",
      "createAgent: pass either a ToolSet as tools or subagents (the subagent tools are the extra tool set); tools made by tool() go with both",
    );
  const localTools = options.tools && !customToolSet ? namedLocalTools(options.tools as LocalTools) : undefined;
  const builtIn = customToolSet ?? (options.subagents ? subagentTools(options.subagents) : undefined);
  return { localTools, tools: localTools?.size ? new LocalToolSet(localTools, builtIn) : builtIn };
}

type SelfToolsModule = typeof import("../../supervisor/self-tools.ts");

/** The subagent tools of a supervisor, their module loaded only for an agent with subagents (createAgent is synchronous). */
const subagentTools = (supervisor: NonNullable<AgentOptions["subagents"]>): ToolSet =>
  new (require("../../supervisor/self-tools.ts") as SelfToolsModule).SubagentToolSet(supervisor);
