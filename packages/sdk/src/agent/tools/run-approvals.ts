/**
 * The approvals of one run: the agent's rules (`createAgent({ approvals })`, the config's `approvals`) with
 * the channel that run is asked through — the run's own (`askApproval`: `agentd run`'s terminal, a served
 * run's caller or A2A task), else the agent's `onAsk`, else the agent's approval desk for a served or
 * triggered run (its question waits there for an operator). Without any, a call that needs a decision is
 * denied and the model is told so — or, for a run that suspends (`suspend`: see agent/run/run-waiting.ts), the
 * run stops waiting, saved, to be resumed with the decisions (natively tool-calling runs; the channel still
 * answers a JSON-action run in memory). This is the whole hook between a run and the approval gate in the loop.
 */
import type { ApprovalChannel, ApprovalRequest, RunApprovals } from "../../loop/approvals/approval-types.ts";
import type { AgentApprovals } from "../types/agent-options.ts";

/** A run's own approval channel (`AgentRunOptions.askApproval`). */
export type AskApproval = ApprovalChannel["ask"];

/** The run as the approvals see it: its id, who it runs for and where it came from. */
export interface ApprovingRun {
  id: string;
  principal?: string;
  origin: { kind: string };
}

/** Runs whose questions go to the desk when they bring no channel of their own: nobody sits at their terminal. */
const DESK_ORIGINS = new Set(["mcp", "a2a", "trigger"]);

/** The loop's approvals for one run; undefined when there is nothing to check (a tool's `needsApproval` still denies then). */
export function runApprovals(
  approvals: AgentApprovals | undefined,
  askApproval: AskApproval | undefined,
  run?: ApprovingRun,
  suspend?: (request: ApprovalRequest) => Promise<void>,
): RunApprovals | undefined {
  const onAsk = approvals?.onAsk;
  const desk = approvals?.desk && run && DESK_ORIGINS.has(run.origin.kind) ? approvals.desk : undefined;
  const atDesk = desk && run ? desk.channelFor({ runId: run.id, principal: run.principal, origin: run.origin.kind }).ask : undefined;
  const inCode: AskApproval | undefined = onAsk ? async (request, signal) => onAsk(request, signal) : undefined;
  const ask: AskApproval | undefined = askApproval ?? inCode ?? atDesk;
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
