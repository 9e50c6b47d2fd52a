/**
 * A tool call of an A2A task's run that waits for approval, on the wire: the task goes `input-required`
 * with the question (its words, then a data part with the call — tool, server, masked arguments, digest,
 * rule — and how to answer), and a follow-up message on the task carrying a data part
 * `{ "decision": "approve" | "deny" | "always", "reason"?, "digest"? }` (or the bare text `approve` / `deny`)
 * is the decision, taken at the agent's approval desk like every other channel's.
 */
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { Logger } from "../../log.ts";
import type { Principal } from "../../serve/principal.ts";
import { A2aError, type Message, type Part } from "../shared/types.ts";

/** The metadata key of the status message's data part that marks it as an approval question. */
export const APPROVAL_PART_KIND = "agentd.dev/approval";

/** The status message parts of an approval question. */
export function approvalParts(request: ApprovalRequest): Part[] {
  const where = request.server ? ` on MCP server '${request.server}'` : "";
  return [
    {
      text: `The call to ${request.tool}${where} waits for approval (${request.rule.label}; approval ${request.id}): ${JSON.stringify(request.arguments)}`,
    },
    {
      data: {
        kind: APPROVAL_PART_KIND,
        approvalId: request.id,
        name: request.name,
        server: request.server,
        tool: request.tool,
        arguments: request.arguments,
        digest: request.digest,
        rule: request.rule.label,
        answer:
          'send a message on this task (same taskId and contextId) with a data part {"decision": "approve" | "deny" | "always", "reason": "…"}',
      },
      mediaType: "application/json",
    },
  ];
}

/** The decision a follow-up message gives, or InvalidParams saying what to send. */
export function decisionOf(message: Message): ApprovalDecision {
  const data = message.parts.find((p) => p.data !== undefined)?.data as Record<string, unknown> | undefined;
  const text = message.parts
    .map((p) => p.text ?? "")
    .join("")
    .trim()
    .toLowerCase();
  const kind = data && typeof data === "object" ? data.decision : text;
  if (kind !== "approve" && kind !== "deny" && kind !== "always")
    throw new A2aError(
      "InvalidParams",
      'the task waits for an approval: send a data part {"decision": "approve" | "deny" | "always", "reason": "…"} (or the text approve or deny)',
    );
  const reason = typeof data?.reason === "string" && data.reason ? data.reason : undefined;
  const digest = typeof data?.digest === "string" && data.digest ? data.digest : undefined;
  return { decision: kind, ...(reason ? { reason } : {}), ...(digest ? { digest } : {}) };
}

/** The approval an A2A task waits on: the question, and whose run asked it. */
export interface WaitingApproval {
  request: ApprovalRequest;
  owner: string;
}

/** Move a task's state; `WORKING` only from `INPUT_REQUIRED` (a task that ended meanwhile stays ended). */
export type SetTaskStatus = (state: "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_WORKING", parts: Part[] | string) => void;

/** The A2A task's run asks at the desk: the task is `input-required` with the question until it is decided. */
export async function askOnTask(
  desk: ApprovalDesk,
  held: { approval?: WaitingApproval },
  owner: string,
  request: ApprovalRequest,
  signal: AbortSignal,
  setStatus: SetTaskStatus,
): Promise<ApprovalDecision> {
  const channel = desk.channelFor({ runId: request.runId, principal: owner, origin: "a2a" });
  held.approval = { request, owner };
  setStatus("TASK_STATE_INPUT_REQUIRED", approvalParts(request));
  try {
    const d = await channel.ask(request, signal);
    setStatus("TASK_STATE_WORKING", `approval ${request.id}: ${d.decision} by ${d.by ?? "unknown"}${d.reason ? ` (${d.reason})` : ""}`);
    return d;
  } finally {
    held.approval = undefined;
  }
}

/**
 * A follow-up message answering the approval a task waits on: checked here (the decision's shape, an operator or
 * — where the rule says `decidedBy: "owner"` — the run's own principal, the digest) so the sender hears a refusal,
 * then decided at the desk, which records it once (another channel's earlier decision wins; it is logged).
 */
export function replyToApproval(
  desk: ApprovalDesk,
  who: Principal,
  waiting: WaitingApproval,
  message: Message,
  logger: Logger | undefined,
): ApprovalDecision {
  const decision = decisionOf(message);
  const { request } = waiting;
  const owner = who.id === waiting.owner && request.rule.rule?.decidedBy === "owner";
  if (who.role !== "operator" && !owner)
    throw new A2aError(
      "PermissionDenied",
      `approval ${request.id} is decided by an operator (serve.operators or an operator token)${who.id === waiting.owner ? ": its rule does not say decidedBy owner" : ""}`,
    );
  if (decision.digest !== undefined && decision.digest !== request.digest)
    throw new A2aError(
      "InvalidParams",
      `approval ${request.id}: the decision names digest ${decision.digest}, not the call's ${request.digest}`,
    );
  logger?.info("a2a.approval", { principal: who.id, approval: request.id, decision: decision.decision });
  void desk
    .decide(request.id, decision, { principal: who.id, operator: who.role === "operator" })
    .catch((e: unknown) => logger?.warn("a2a.approval.refused", { principal: who.id, approval: request.id, error: String(e) }));
  return decision;
}
