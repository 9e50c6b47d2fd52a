/**
 * The loop's ToolSet over connected MCP clients: tools are offered as `server/tool`, every call carries the
 * run id in `_meta`, and transport or protocol failures become tool-domain errors the model can observe.
 */
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../loop/tools.ts";
import type { McpClient } from "../mcp/client.ts";
import { AgentdError, McpError } from "../wire/errors.ts";
import { renderToolResult } from "./render-content.ts";

/** Split `server/tool` at the first slash. */
export function splitQualified(name: string): { server: string; tool: string } | undefined {
  const i = name.indexOf("/");
  return i > 0 ? { server: name.slice(0, i), tool: name.slice(i + 1) } : undefined;
}

/** A ToolSet over MCP clients, keyed by server name. Extra tools (self-tools) may be added. */
export class McpToolSet implements ToolSet {
  constructor(
    private readonly clients: ReadonlyMap<string, McpClient>,
    private readonly extra: ToolSet | undefined = undefined,
  ) {}

  async list(): Promise<ToolDescriptor[]> {
    const lists = await Promise.all(
      [...this.clients].map(async ([server, client]) =>
        (await client.listTools()).map((t) => ({
          name: `${server}/${t.name}`,
          ...(t.description ? { description: t.description } : {}),
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
        })),
      ),
    );
    const own = this.extra ? await this.extra.list() : [];
    return [...own, ...lists.flat()];
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const q = splitQualified(name);
    const client = q ? this.clients.get(q.server) : undefined;
    if (!q || !client) {
      if (this.extra) return this.extra.call(name, args, ctx);
      return { text: `Unknown tool '${name}'.`, isError: true };
    }
    try {
      const result = await client.callTool(q.tool, args, {
        runId: ctx.runId,
        signal: ctx.signal,
        ...(ctx.onprogress ? { onprogress: ctx.onprogress } : {}),
      });
      return {
        text: renderToolResult(result),
        isError: result.isError === true,
        ...(result.structuredContent ? { structuredContent: result.structuredContent as Record<string, unknown> } : {}),
      };
    } catch (e) {
      // A caller abort (deadline, budget) must propagate so the loop stops; everything else is an observation.
      if (ctx.signal.aborted) throw e;
      if (McpError.isInstance(e)) return { text: `Tool '${name}' failed: ${e.message} (code ${e.code})`, isError: true };
      if (AgentdError.isInstance(e)) return { text: `Tool '${name}' failed: ${e.message}`, isError: true };
      return { text: `Tool '${name}' failed: ${e instanceof Error ? e.message : String(e)}`, isError: true };
    }
  }
}
