/**
 * A server's tool filter (`mcpServers.X.tools`: `include`, less `exclude`) as a predicate over the tool names
 * that server lists. The tool set applies it at both ends — a tool left out is not offered to the model, and
 * a call to it (a model that guesses the name) is refused — so a filter is a boundary, not a hint. Names
 * match exactly or by `*`/`?` globs, the same rule as the run's `scope.allow`.
 */
import type { McpServerConfig } from "../../config/types.ts";
import { compileScope } from "../../loop/scope.ts";

/** Whether the agent uses a tool, by the name its server lists. */
export type ToolFilter = (tool: string) => boolean;

/** The filter of one entry's `tools`, or undefined when it keeps every tool. */
export function compileToolFilter(tools: McpServerConfig["tools"]): ToolFilter | undefined {
  if (!tools || (tools.include === undefined && (tools.exclude ?? []).length === 0)) return undefined;
  const included = compileScope(tools.include === undefined ? undefined : { allow: tools.include });
  const excluded = tools.exclude?.length ? compileScope({ allow: tools.exclude }) : () => false;
  return (tool) => included(tool) && !excluded(tool);
}

/** The filters of the servers that have one, by server name. */
export function toolFilters(servers: Readonly<Record<string, McpServerConfig>> | undefined): Map<string, ToolFilter> {
  const filters = new Map<string, ToolFilter>();
  for (const [name, entry] of Object.entries(servers ?? {})) {
    const filter = compileToolFilter(entry.tools);
    if (filter) filters.set(name, filter);
  }
  return filters;
}
