/**
 * Tools defined in code with `serve: true`, offered on the agent's served MCP endpoints: listed in
 * `tools/list` with their JSON Schemas and called with the same validation as in a run. The caller's run
 * id (`_meta["agentd.dev/run-id"]`) reaches `execute` when it sends one (else a fresh one); cancellation aborts its signal.
 */
import type { McpServer } from "../mcp/server/server.ts";
import { RUN_ID_META_KEY } from "../mcp/protocol/meta.ts";
import type { CallToolResult } from "../wire/index.ts";
import { runIdOr } from "../loop/run-id.ts";
import type { LocalTool } from "./tool.ts";

/** Register the served local tools on `server`; returns the function that removes them. */
export function registerLocalTools(server: McpServer, tools: ReadonlyMap<string, LocalTool>): () => void {
  const registered = [...tools]
    .filter(([, t]) => t.serve)
    .map(([name, t]) =>
      server.tool(
        {
          name,
          description: t.description,
          inputSchema: t.inputSchema as never,
          outputSchema: t.outputSchema as never,
        },
        async (args, ctx): Promise<CallToolResult> => {
          const meta = ctx.meta[RUN_ID_META_KEY];
          const runId = runIdOr(typeof meta === "string" ? meta : undefined);
          const r = await t.invoke(args, {
            signal: ctx.signal,
            runId,
            onprogress: (p) => void ctx.sendProgress(p.progress, p.total, p.message),
          });
          return {
            content: [{ type: "text", text: r.text }],
            structuredContent: r.structuredContent as Record<string, unknown> | undefined,
            isError: r.isError || undefined,
          };
        },
      ),
    );
  return () => {
    for (const r of registered) r.remove();
  };
}
