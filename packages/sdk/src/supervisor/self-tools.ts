/**
 * The subagent tools as a loop ToolSet (offered to the model with `createAgent({ tools })`). Each call is
 * scoped to the calling run (its children only) and bills usage: every outcome carries, in `usage`, what
 * the run's children consumed since its last subagent call — so the loop adds children's usage to the
 * run's budget (and a child's subtree usage is in its own, all the way up the tree).
 */
import { addUsage, emptyUsage, USAGE_DETAIL_KEYS, type Usage } from "../model/language-model.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../loop/tools.ts";
import { callSubagentTool, SUBAGENT_TOOLS } from "./subagent-tools.ts";
import type { Supervisor } from "./supervisor.ts";

const minus = (a: Usage, b: Usage): Usage => {
  const d: Usage = {
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    totalTokens: a.totalTokens - b.totalTokens,
  };
  // The cache and reasoning split travels with the bill, so the parent's cost prices it the same way.
  for (const k of USAGE_DETAIL_KEYS) if (a[k] !== undefined) d[k] = a[k] - (b[k] ?? 0);
  return d;
};

/** The self-tools of one supervisor. */
export class SubagentToolSet implements ToolSet {
  /** Usage already billed, by handle id. */
  private readonly billed = new Map<string, Usage>();

  constructor(readonly supervisor: Supervisor) {}

  async list(): Promise<ToolDescriptor[]> {
    return SUBAGENT_TOOLS;
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> {
    const answer = await callSubagentTool(this.supervisor, name, args, {
      owner: ctx.runId,
      signal: ctx.signal,
      traceContext: ctx.traceContext,
    });
    const usage = this.unbilled(ctx.runId);
    return {
      text: answer.text,
      isError: answer.isError,
      structuredContent: answer.structuredContent,
      usage: usage.inputTokens + usage.outputTokens + usage.totalTokens > 0 ? usage : undefined,
    };
  }

  /** What `owner`'s children used since it was last billed. */
  unbilled(owner: string): Usage {
    let total = emptyUsage();
    const seen = new Set<string>();
    for (const r of this.supervisor.list({ owner })) {
      seen.add(r.id);
      const before = this.billed.get(r.id) ?? emptyUsage();
      total = addUsage(total, minus(r.usage, before));
      this.billed.set(r.id, r.usage);
    }
    // Forget handles that expired from the table.
    for (const id of this.billed.keys()) if (!seen.has(id) && !this.supervisor.get(id)) this.billed.delete(id);
    return total;
  }
}

/** The model's subagent tools over `supervisor`. */
export const createSubagentToolSet = (supervisor: Supervisor): SubagentToolSet => new SubagentToolSet(supervisor);
