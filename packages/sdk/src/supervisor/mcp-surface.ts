/**
 * The subagent surface on an MCP server (the served agent): the same tools as the model's, and the
 * subscribable resource `agent://subagent/{id}/result` — `resources/read` gives the status while the child
 * runs and the result once done; `notifications/resources/updated` goes to subscribers when it finishes
 * (async completion the agent-native way, not `tasks/*`). The internal control wire is
 * never visible here. Wire it with `createServedMcp({ extend: (server) => registerSubagentSurface(server, sup) })`.
 */
import type { McpServer } from "../mcp/server/server.ts";
import { resourceNotFound, type ServerSession } from "../mcp/server/session.ts";
import type { MessageExtra } from "../transport/types.ts";
import type { CallToolResult } from "../wire/index.ts";
import { callSubagentTool, handleView, RESULT_URI_TEMPLATE, resultUri, SUBAGENT_TOOLS } from "./subagent-tools.ts";
import type { Supervisor } from "./supervisor.ts";

/**
 * Who may see what, when the surface is served to more than one principal (the served agent passes its own):
 * a caller sees and controls only the subagents it started, an operator (owner `undefined`) all of them.
 */
export interface SubagentSurfaceAccess {
  /** The caller's owner key, or undefined when it may see every subagent (an operator). */
  ownerOf(authInfo: MessageExtra["authInfo"]): string | undefined;
  /** The owner key a caller's spawns get (an operator's spawns are its own too). */
  principalIdOf(authInfo: MessageExtra["authInfo"]): string;
  /** Which sessions may hear that one of `owner`'s subagents finished. */
  hears(owner: string | undefined): (session: ServerSession) => boolean;
}

/** Register the subagent tools and the result resource template; returns the function that removes them. */
export function registerSubagentSurface(server: McpServer, supervisor: Supervisor, access?: SubagentSurfaceAccess): () => void {
  const registered = SUBAGENT_TOOLS.map((tool) =>
    server.tool(
      { name: tool.name, description: tool.description || undefined, inputSchema: tool.inputSchema as never },
      async (args, ctx): Promise<CallToolResult> => {
        // Spawns are owned by the caller; list/wait/result/cancel see the caller's own (an operator's: all).
        const owner = access
          ? tool.name === "subagent.spawn"
            ? access.principalIdOf(ctx.authInfo)
            : access.ownerOf(ctx.authInfo)
          : undefined;
        const answer = await callSubagentTool(supervisor, tool.name, args, { signal: ctx.signal, owner });
        return {
          content: [{ type: "text", text: answer.text }],
          structuredContent: answer.structuredContent,
          isError: answer.isError || undefined,
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
    (uri, vars, ctx) => {
      const record = supervisor.get(String(vars.id));
      const owner = access?.ownerOf(ctx.authInfo);
      // Another principal's subagent reads as absent: its id is not even confirmed.
      if (!record || (owner !== undefined && record.owner !== owner)) throw resourceNotFound(uri);
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(handleView(record)) }] };
    },
  );
  const off = supervisor.table.onChange((record, finished) => {
    if (finished) void server.notifyResourceUpdated(resultUri(record.id), access?.hears(record.owner));
  });
  return () => {
    off();
    template.remove();
    for (const r of registered) r.remove();
  };
}
