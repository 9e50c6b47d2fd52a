/**
 * The subagent surface on an MCP server (the self-MCP): the same tools as the model's, and the
 * subscribable resource `agent://subagent/{id}/result` — `resources/read` gives the status while the child
 * runs and the result once done; `notifications/resources/updated` goes to subscribers when it finishes
 * (seed D1 fallback: async completion the agent-native way, not `tasks/*`). The internal control wire is
 * never visible here. Wire it with `createSelfMcpServer({ extend: (server) => registerSubagentSurface(server, sup) })`.
 */
import type { McpServer } from "../mcp/server.ts";
import { resourceNotFound } from "../mcp/server-session.ts";
import type { CallToolResult } from "../wire/index.ts";
import { callSubagentTool, handleView, RESULT_URI_TEMPLATE, resultUri, SUBAGENT_TOOLS } from "./subagent-tools.ts";
import type { Supervisor } from "./supervisor.ts";

/** Register the subagent tools and the result resource template; returns the function that removes them. */
export function registerSubagentSurface(server: McpServer, supervisor: Supervisor): () => void {
  const registered = SUBAGENT_TOOLS.map((tool) =>
    server.tool(
      { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: tool.inputSchema as never },
      async (args, ctx): Promise<CallToolResult> => {
        const answer = await callSubagentTool(supervisor, tool.name, args, { signal: ctx.signal });
        return {
          content: [{ type: "text", text: answer.text }],
          ...(answer.structuredContent ? { structuredContent: answer.structuredContent } : {}),
          ...(answer.isError ? { isError: true } : {}),
        };
      },
    ),
  );
  const template = server.resourceTemplate(
    {
      uriTemplate: RESULT_URI_TEMPLATE,
      name: "subagent-result",
      title: "A subagent's result",
      mimeType: "application/json",
      description: "Status while the subagent runs, its result once done; subscribe to be told when it finishes",
    },
    (uri, vars) => {
      const record = supervisor.get(String(vars.id));
      if (!record) throw resourceNotFound(uri);
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(handleView(record)) }] };
    },
  );
  const off = supervisor.table.onChange((record, finished) => {
    if (finished) void server.notifyResourceUpdated(resultUri(record.id));
  });
  return () => {
    off();
    template.remove();
    for (const r of registered) r.remove();
  };
}
