/**
 * The child's side of usage reporting: sums what its run has used — model turns from the run's events,
 * and tool-reported usage (its own subagents) from the tool outcomes — and reports the cumulative figures
 * as `progress` to the parent, so a parent always knows what a child used, even one that later crashes.
 */
import type { RunEvent } from "../loop/events.ts";
import { addUsage, emptyUsage, type Usage } from "../model/language-model.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "../loop/tools.ts";
import type { ProgressParams } from "./control-protocol.ts";

/** Cumulative usage of one attempt, reported on every change. */
export class ProgressMeter {
  private usage: Usage = emptyUsage();
  private turns = 0;
  private toolCalls = 0;

  constructor(private readonly report: (p: ProgressParams) => void) {}

  /** What was used so far. */
  snapshot(message?: string): ProgressParams {
    return { usage: this.usage, turns: this.turns, toolCalls: this.toolCalls, message: message || undefined };
  }

  /** Feed a run event (model responses count turns and tokens; tool results count calls). */
  event(e: RunEvent): void {
    if (e.type === "model-end") {
      this.turns = e.turn;
      this.usage = addUsage(this.usage, e.usage);
      this.report(this.snapshot(`turn ${e.turn}`));
    } else if (e.type === "tool-call-end") {
      this.toolCalls++;
      this.report(this.snapshot(`tool ${e.qualifiedName ?? e.name}`));
    }
  }

  /** Wrap a ToolSet so usage its calls report (a subagent's) is counted too. */
  tap(inner: ToolSet): ToolSet {
    return {
      list: (): Promise<ToolDescriptor[]> => inner.list(),
      call: async (name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome> => {
        const outcome = await inner.call(name, args, ctx);
        if (outcome.usage) {
          this.usage = addUsage(this.usage, outcome.usage);
          this.report(this.snapshot(`usage of ${name}`));
        }
        return outcome;
      },
    };
  }
}
