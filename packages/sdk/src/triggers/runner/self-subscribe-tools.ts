/**
 * The self-subscription tools offered to the model (with `triggers.selfSubscribe` set): `agent.subscribe`,
 * `agent.unsubscribe`, `agent.subscriptions`, chained in front of the agent's other own tools. Refusals
 * are tool-domain errors the model can act on.
 */
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../../loop/tools.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { SelfSubscriptions } from "./self-subscriptions.ts";

const SERVER = { type: "string", description: "The MCP server's configured name" };
const URI = { type: "string", description: "The resource URI to watch" };

/** The tools' descriptors. */
export const SELF_SUBSCRIBE_TOOLS: ToolDescriptor[] = [
  {
    name: "agent.subscribe",
    description:
      "Watch an MCP resource from now on: each time its content changes (and once now), a new run starts with `instruction` (a template: {{resource.text}}, {{resource.uri}}). Survives this run; idempotent per server and uri.",
    inputSchema: {
      type: "object",
      properties: { server: SERVER, uri: URI, instruction: { type: "string", minLength: 1, description: "What to do on each change" } },
      required: ["server", "uri", "instruction"],
      additionalProperties: false,
    },
  },
  {
    name: "agent.unsubscribe",
    description: "Stop watching a resource watched with agent.subscribe.",
    inputSchema: { type: "object", properties: { server: SERVER, uri: URI }, required: ["server", "uri"], additionalProperties: false },
  },
  {
    name: "agent.subscriptions",
    description: "List the resources watched with agent.subscribe (and the most allowed).",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
  },
];

const NAMES = new Set(SELF_SUBSCRIBE_TOOLS.map((t) => t.name));

/** The self-subscription tools over `subs`, in front of `next` (the subagent tools, or none). */
export class SelfSubscribeToolSet implements ToolSet {
  constructor(
    private readonly subs: SelfSubscriptions,
    private readonly next?: ToolSet,
  ) {}

  async list(): Promise<ToolDescriptor[]> {
    return [...SELF_SUBSCRIBE_TOOLS, ...((await this.next?.list()) ?? [])];
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    if (!NAMES.has(name)) {
      if (this.next) return this.next.call(name, args, ctx);
      return { text: `unknown tool ${name}`, isError: true };
    }
    try {
      const str = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : "");
      if (name === "agent.subscribe") {
        const r = await this.subs.add({ server: str("server"), uri: str("uri"), instruction: str("instruction") }, ctx.runId);
        const structuredContent = { status: r.status, id: r.subscription.id, state: r.trigger?.state ?? "active" };
        return { text: JSON.stringify(structuredContent), isError: false, structuredContent };
      }
      if (name === "agent.unsubscribe") {
        const removed = await this.subs.remove(str("server"), str("uri"), ctx.runId);
        return { text: JSON.stringify({ removed }), isError: !removed, structuredContent: { removed } };
      }
      const structuredContent = { max: this.subs.max, subscriptions: this.subs.list() };
      return { text: JSON.stringify(structuredContent), isError: false, structuredContent };
    } catch (error) {
      if (AgentdError.isInstance(error)) return { text: error.message, isError: true };
      throw error;
    }
  }
}
