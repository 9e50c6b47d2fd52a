/**
 * What a run that suspends for a person's decision stops with, and what it is continued from. A waiting run
 * holds nothing open — no model request, no tool call — so everything needed to go on is in this state:
 * the conversation up to the assistant turn whose calls wait, the results of that turn's calls already
 * made, the calls that wait (with their questions and the arguments as the model wrote them, which the
 * tool gets exactly when approved), and what the run used so far. The agent saves it (agent/run/waiting-runs.ts) and
 * hands it back with the decisions; the loop finishes the turn and goes on as if it had never stopped.
 */
import type { ApprovalDecision, ApprovalRequest } from "./approvals/approval-types.ts";
import type { ExecutedToolCall, ToolCallRequest } from "./execute-tool-call.ts";
import type { ModelMessage, ToolResultPart, Usage } from "../model/language-model.ts";

/** One call that waits: its question and the call as the model wrote it (the unmasked arguments). */
export interface PendingToolCall {
  request: ApprovalRequest;
  call: ToolCallRequest;
}

/** The state of a run that stopped waiting (see the module header). */
export interface RunSuspension {
  /** The conversation after the system prompt, ending with the assistant turn whose calls wait. */
  messages: ModelMessage[];
  /** That turn's calls already made (or refused), in the model's order. */
  results: ToolResultPart[];
  /** That turn's calls that wait for a decision, in the model's order. */
  pending: PendingToolCall[];
  usage: Usage;
  turns: number;
  /** Tool calls counted so far (the pending ones included). */
  toolCalls: number;
  /** Running time so far, in milliseconds (the wait is not counted: see docs/approvals.md). */
  elapsedMs: number;
  /** Tools allowed for the rest of the run by an "always" decision. */
  allowedForRun: string[];
}

/** A suspended run to continue, with the decisions on its questions by request id. */
export interface RunContinuation {
  suspension: RunSuspension;
  decisions: ReadonlyMap<string, ApprovalDecision>;
}

/** A tool call's result as the model reads it. */
export const toolResultOf = (d: ExecutedToolCall): ToolResultPart => ({
  type: "tool-result",
  toolCallId: d.request.toolCallId,
  toolName: d.request.name,
  output: d.fenced,
  isError: d.outcome.isError || undefined,
});

/** The results of one turn in the order of the assistant message's calls (earlier ones first when an id is missing). */
export function inCallOrder(assistant: ModelMessage | undefined, results: ToolResultPart[]): ToolResultPart[] {
  const order = new Map<string, number>();
  if (assistant?.role === "assistant" && Array.isArray(assistant.content))
    assistant.content.forEach((p, i) => p.type === "tool-call" && order.set(p.toolCallId, i));
  return results
    .map((r, i) => ({ r, at: order.get(r.toolCallId) ?? -1, i }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map((x) => x.r);
}
