/**
 * The loop's ToolSet over connected MCP clients: tools are offered as `server/tool`, every call carries the
 * run id in `_meta`, and transport or protocol failures become tool-domain errors the model can observe.
 */
import type { Logger } from "../../log.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../../loop/tools.ts";
import type { ToolHints } from "../../loop/approvals/approval-types.ts";
import type { CallToolOptions } from "../../mcp/client/client.ts";
import type { CallToolResult, Tool } from "../../wire/index.ts";
import { McpError } from "../../wire/errors.ts";
import { type AuthorizationAsk, withAuthorization } from "../../mcp/client/authorization-ask.ts";
import { renderToolResult } from "./render-content.ts";
import type { SamplingLedger } from "../sampling/sampling-ledger.ts";
import type { OpenToolCalls } from "../connections/open-tool-calls.ts";
import type { InFlightRuns } from "../connections/in-flight-runs.ts";
import type { ToolFilter } from "./server-tool-filter.ts";

/** Split `server/tool` at the first slash. */
export function splitQualified(name: string): { server: string; tool: string } | undefined {
  const i = name.indexOf("/");
  return i > 0 ? { server: name.slice(0, i), tool: name.slice(i + 1) } : undefined;
}

/** The behaviour hints of a tool's annotations (what approval rules match on), when it declares any. */
function hintsOf(a: Tool["annotations"]): ToolHints | undefined {
  if (!a) return undefined;
  const hints: ToolHints = {};
  for (const k of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
    if (typeof a[k] === "boolean") hints[k] = a[k];
  return Object.keys(hints).length ? hints : undefined;
}

/** What the tool set needs of a client: `McpClient` and `ManagedMcpClient` both fit. */
export interface ToolClient {
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult>;
  /** Whether the connection is up now (a managed client may be reconnecting). */
  readonly connected?: boolean;
}

/** Options of an {@link McpToolSet}. */
export interface McpToolSetOptions {
  /**
   * Servers configured `required: false`. Their tools are left out of a listing while they are not
   * connected or fail to list, instead of making the run wait for them or fail.
   */
  optional?: ReadonlySet<string>;
  logger?: Logger;
  /** Bills sampling a server does during a tool call to that call (its outcome's `usage`). */
  sampling?: SamplingLedger;
  /** Records the calls in flight, so a server's elicitation during a call reaches that call's run. */
  calls?: OpenToolCalls;
  /**
   * The runs in flight: a call's run says who completes a server's authorization (an A2A task's client;
   * without one, a call a server refuses for want of authorization fails at once) and takes its sampling.
   */
  runs?: InFlightRuns;
  /**
   * Per-server tool filters (`mcpServers.X.tools`, see `toolFilters`), by server name: a tool a filter leaves
   * out is neither listed nor callable.
   */
  filters?: ReadonlyMap<string, ToolFilter>;
}

/** A ToolSet over MCP clients, keyed by server name. Extra tools (self-tools) may be added. */
export class McpToolSet implements ToolSet {
  constructor(
    private readonly clients: ReadonlyMap<string, ToolClient>,
    private readonly extra: ToolSet | undefined = undefined,
    private readonly options: McpToolSetOptions = {},
  ) {}

  async list(): Promise<ToolDescriptor[]> {
    const lists = await Promise.all([...this.clients].map(([server, client]) => this.listOne(server, client)));
    const own = this.extra ? await this.extra.list() : [];
    return [...own, ...lists.flat()];
  }

  private async listOne(server: string, client: ToolClient): Promise<ToolDescriptor[]> {
    const optional = this.options.optional?.has(server) === true;
    if (optional && client.connected === false) {
      this.options.logger?.info("mcp.tools_skipped", { server, reason: "not connected" });
      return [];
    }
    let tools: Tool[];
    try {
      tools = await client.listTools();
    } catch (e) {
      if (!optional) throw e;
      this.options.logger?.warn("mcp.tools_skipped", { server, error: e instanceof Error ? e.message : String(e) });
      return [];
    }
    const filter = this.options.filters?.get(server);
    return (filter ? tools.filter((t) => filter(t.name)) : tools).map((t) => ({
      name: `${server}/${t.name}`,
      description: t.description || undefined,
      inputSchema: t.inputSchema as Record<string, unknown>,
      outputSchema: t.outputSchema as Record<string, unknown> | undefined,
      annotations: hintsOf(t.annotations),
    }));
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const q = splitQualified(name);
    const client = q ? this.clients.get(q.server) : undefined;
    if (!q || !client) {
      if (this.extra) return this.extra.call(name, args, ctx);
      return { text: `Unknown tool '${name}'.`, isError: true };
    }
    const filter = this.options.filters?.get(q.server);
    if (filter && !filter(q.tool))
      return {
        text: `Tool '${name}' is not available to this agent (its server's tool filter leaves it out); do not call it again.`,
        isError: true,
      };
    const run = this.options.runs?.get(ctx.runId);
    const billing = this.options.sampling?.begin(q.server, ctx.runId, run?.sampling);
    const endCall = this.options.calls?.begin(q.server, ctx.runId, ctx.signal);
    try {
      const result = await this.callAuthorized(client, q.server, q.tool, args, ctx, run?.askAuthorization);
      const usage = billing?.end();
      return {
        text: renderToolResult(result),
        isError: result.isError === true,
        structuredContent: result.structuredContent as Record<string, unknown> | undefined,
        usage,
      };
    } catch (e) {
      const usage = billing?.end();
      // A caller abort (deadline, budget) must propagate so the loop stops; everything else is an observation.
      if (ctx.signal.aborted) throw e;
      const detail = McpError.isInstance(e) ? `${e.message} (code ${e.code})` : e instanceof Error ? e.message : String(e);
      return { text: `Tool '${name}' failed: ${detail}`, isError: true, usage };
    } finally {
      endCall?.();
    }
  }

  /** The call; when the server needs an authorization the run's asker can get, wait for it and retry (bounded). */
  private callAuthorized(
    client: ToolClient,
    server: string,
    tool: string,
    args: Record<string, unknown>,
    ctx: ToolCallContext,
    ask: AuthorizationAsk | undefined,
  ): Promise<CallToolResult> {
    const call = () =>
      client.callTool(tool, args, {
        runId: ctx.runId,
        signal: ctx.signal,
        onprogress: ctx.onprogress,
        // W3C trace context in `_meta`, unprefixed, as the MCP trace-context proposal places it.
        meta: ctx.traceContext ? { ...ctx.traceContext } : undefined,
      });
    return withAuthorization(call, ask, ctx.signal, server);
  }
}
