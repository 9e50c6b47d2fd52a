/**
 * The approvals of one run: the agent's rules (`createAgent({ approvals })`, the config's `approvals`) with
 * the channel that run is asked through — the run's own (`askApproval`: `agentd run`'s terminal, a served
 * run's operator) before the agent's `onAsk`. Without either, a call that needs a decision is denied and
 * the model is told so — or, for a run that suspends (`suspend`: see agent/run/run-waiting.ts), the run
 * stops waiting, saved, to be resumed with the decisions. This is the whole hook between a run and the
 * approval gate in the loop.
 */
import type { ApprovalChannel, ApprovalRequest, RunApprovals } from "../../loop/approvals/approval-types.ts";
import type { AgentApprovals } from "../types/agent-options.ts";

/** A run's own approval channel (`AgentRunOptions.askApproval`). */
export type AskApproval = ApprovalChannel["ask"];

/** The loop's approvals for one run; undefined when there is nothing to check (a tool's `needsApproval` still denies then). */
export function runApprovals(
  approvals: AgentApprovals | undefined,
  askApproval: AskApproval | undefined,
  suspend?: (request: ApprovalRequest) => Promise<void>,
): RunApprovals | undefined {
  const onAsk = approvals?.onAsk;
  const ask: AskApproval | undefined = askApproval ?? (onAsk ? async (request, signal) => onAsk(request, signal) : undefined);
  if (!approvals && !ask && !suspend) return undefined;
  return {
    rules: approvals?.rules,
    channel: ask ? { ask } : undefined,
    timeoutMs: approvals?.timeoutMs,
    onTimeout: approvals?.onTimeout,
    unansweredHint: approvals?.unansweredHint,
    suspend,
  };
}
