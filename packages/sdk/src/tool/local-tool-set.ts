/**
 * The loop's ToolSet over tools defined in code: listed under their own names beside the MCP servers'
 * `server/tool` ones (and before any further tool set, such as the subagent tools), called in process.
 * The loop applies scope, budgets, timeouts and telemetry to them as to any tool; the run id reaches
 * `execute` in its context.
 */
import { AgentdError } from "../wire/errors.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../loop/tools.ts";
import { describeLocalTool, isLocalTool, type LocalTool } from "./tool.ts";

/** Tools defined in code: an array of named tools, or a record whose keys name them. */
export type LocalTools = readonly LocalTool<any, any>[] | Readonly<Record<string, LocalTool<any, any>>>;

/** Resolve the names of `tools`; throws `E_USAGE` for an unnamed or duplicate tool, or one that is not a `tool()`. */
export function namedLocalTools(tools: LocalTools): Map<string, LocalTool> {
  const out = new Map<string, LocalTool>();
  const entries: Array<[string | undefined, unknown]> = Array.isArray(tools)
    ? tools.map((t) => [(t as LocalTool | undefined)?.name, t])
    : Object.entries(tools);
  for (const [name, t] of entries) {
    if (!isLocalTool(t))
      throw new AgentdError(
        "E_USAGE",
        `createAgent: tools${name ? `.${name}` : ""} is not made by tool() (pass tool({ description, parameters, execute }))`,
      );
    if (!name)
      throw new AgentdError(
        "E_USAGE",
        "createAgent: a tool in the tools array has no name; give it one (tool({ name, … })) or pass tools as a record",
      );
    if (name.includes("/"))
      throw new AgentdError(
        "E_USAGE",
        `createAgent: tools.${name}: "server/tool" names belong to the MCP servers' tools; name a local tool without "/"`,
      );
    if (out.has(name)) throw new AgentdError("E_USAGE", `createAgent: two tools are named "${name}"; tool names must be unique`);
    out.set(name, t as LocalTool);
  }
  return out;
}

/** A ToolSet of local tools, with `next` (e.g. the subagent tools) listed after them and called for other names. */
export class LocalToolSet implements ToolSet {
  constructor(
    readonly tools: ReadonlyMap<string, LocalTool>,
    private readonly next?: ToolSet,
  ) {}

  async list(): Promise<ToolDescriptor[]> {
    const own = [...this.tools].map(([name, t]) => describeLocalTool(name, t));
    const rest = this.next ? await this.next.list() : [];
    const clash = rest.find((d) => this.tools.has(d.name));
    if (clash) throw new AgentdError("E_USAGE", `the tool name "${clash.name}" is taken by a built-in tool; rename your tool`);
    return [...own, ...rest];
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const t = this.tools.get(name);
    if (!t) return this.next ? this.next.call(name, args, ctx) : { text: `Unknown tool '${name}'.`, isError: true };
    const r = await t.invoke(args, ctx);
    return {
      text: r.text,
      isError: r.isError,
      structuredContent: r.structuredContent as Record<string, unknown> | undefined,
    };
  }
}
