/**
 * The terminal question of a tool call that needs approval: the tool, its server, its arguments (already
 * masked) and the rule that asked, then approve / deny / always for this run (@clack/prompts, on stderr so
 * stdout stays the result). A denial may carry a reason, which the model reads. Escape or Ctrl-C denies.
 */
import { isCancel, select, text } from "@clack/prompts";
import type { ApprovalDecision, ApprovalRequest } from "@agentd/sdk";

const ARGUMENT_CHARS = 300;

/** The question's text: what would be called, with what, and why it is asked. */
export function approvalQuestion(request: ApprovalRequest): string {
  const json = JSON.stringify(request.arguments, null, 2) ?? "{}";
  const args = json.length > ARGUMENT_CHARS ? `${json.slice(0, ARGUMENT_CHARS - 1)}…` : json;
  const where = request.server ? `tool ${request.tool} of server ${request.server}` : `tool ${request.tool}`;
  const note = request.rule.rule?.message ? `\n${request.rule.rule.message}` : "";
  return `Allow ${where}?\n${args}\nasked by ${request.rule.label}${note}`;
}

/** Ask in the terminal; resolves to the person's decision. */
export async function askInTerminal(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
  const choice = await select<"approve" | "deny" | "always">({
    message: approvalQuestion(request),
    output: process.stderr,
    signal,
    options: [
      { value: "approve", label: "Approve", hint: "this call" },
      { value: "deny", label: "Deny" },
      { value: "always", label: "Always for this run", hint: `every ${request.name} call until the run ends` },
    ],
  });
  if (isCancel(choice)) return { decision: "deny", by: "terminal", reason: "cancelled at the terminal" };
  if (choice !== "deny") return { decision: choice, by: "terminal" };
  const reason = await text({ message: "Reason (the model reads it; Enter for none)", output: process.stderr, signal });
  return { decision: "deny", by: "terminal", reason: isCancel(reason) || !reason ? undefined : String(reason) };
}
