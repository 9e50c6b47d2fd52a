/**
 * The console's answers to what the agent waits on: `POST /console/api/approve`, `/deny` and `/always` decide a
 * tool call's approval through the approval desk (bound to the call's argument digest when the page sends it,
 * recorded with the operator's principal as `by` and the reason given); `POST /console/api/answer` answers an
 * operator elicitation an A2A task waits on, through the same path as an A2A follow-up message (checked
 * against the requested schema, logged as `a2a.operator` without its content). Operators only (403
 * otherwise), and like every console action the body must be `application/json` (a cross-site form cannot
 * send it, and there is no cookie to ride on) and small.
 */
import { readConsoleBody } from "./console-body.ts";
import { A2aError } from "../../a2a/shared/types.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalDecision } from "../../loop/approvals/approval-types.ts";
import { ELICITATION_ACTION_KEY } from "../../a2a/server/operator-answer.ts";
import type { Logger } from "../../log.ts";
import type { Principal } from "../../serve/principal.ts";
import { AgentdError } from "../../wire/errors.ts";
import { asksOperator, type ElicitationSource } from "./console-questions.ts";

/** The approval decisions the console sends, by path. */
export const DECISIONS: Record<string, ApprovalDecision["decision"]> = { approve: "approve", deny: "deny", always: "always" };
const MAX_REASON = 1000;

/** What answering reads and acts on. */
export interface ConsoleAnswerContext {
  desk?: ApprovalDesk;
  elicitations?: ElicitationSource;
  logger: Logger;
}

/** An answer: status and JSON body (the API adds its headers). */
export type AnswerResult = { status: number; body: unknown };

const refuse = (status: number, code: string, message: string): AnswerResult => ({ status, body: { error: { code, message } } });

/** Handle `POST /console/api/<sub>` for an approval decision (`approve`, `deny`, `always`) or an elicitation's `answer`. */
export async function answerFromConsole(ctx: ConsoleAnswerContext, req: Request, sub: string, who: Principal): Promise<AnswerResult> {
  if (who.role !== "operator") {
    ctx.logger.warn("console.answer.refused", { principal: who.id, action: sub });
    return refuse(403, "PermissionDenied", "only an operator may answer what the agent waits on");
  }
  const read = await readJson(req);
  if (!read.ok) return read.refused;
  return sub === "answer" ? answerElicitation(ctx, read.params, who) : decide(ctx, read.params, DECISIONS[sub]!, who);
}

async function decide(
  ctx: ConsoleAnswerContext,
  p: Record<string, unknown>,
  decision: ApprovalDecision["decision"],
  who: Principal,
): Promise<AnswerResult> {
  if (!ctx.desk) return refuse(404, "not_found", "tool approvals are not served by this agent");
  if (typeof p.id !== "string" || p.id === "") return refuse(400, "InvalidParams", "id: the question's id (apr-…)");
  if (p.reason !== undefined && typeof p.reason !== "string") return refuse(400, "InvalidParams", "reason: text");
  if (p.digest !== undefined && typeof p.digest !== "string") return refuse(400, "InvalidParams", "digest: the call's argument digest");
  const reason = typeof p.reason === "string" && p.reason.trim() ? p.reason.trim().slice(0, MAX_REASON) : undefined;
  const viewer = { principal: who.id, operator: true };
  if (!(await ctx.desk.get(p.id, viewer))) return refuse(404, "not_found", `no question ${p.id.slice(0, 80)} is waiting`);
  try {
    const decided = await ctx.desk.decide(
      p.id,
      { decision, by: who.id, ...(reason ? { reason } : {}), ...(p.digest ? { digest: p.digest } : {}) },
      viewer,
    );
    ctx.logger.info("console.approval_decided", { principal: who.id, id: p.id, decision });
    return { status: 200, body: { result: { id: p.id, state: decided.state, decision: decided.decision } } };
  } catch (e) {
    if (!AgentdError.isInstance(e)) throw e;
    // Already decided, or a digest that is not the call's: the page's view was stale.
    return refuse(e.code === "E_UNAUTHORIZED" ? 403 : 409, e.code, e.message);
  }
}

function answerElicitation(ctx: ConsoleAnswerContext, p: Record<string, unknown>, who: Principal): AnswerResult {
  const source = ctx.elicitations;
  if (!source?.send) return refuse(404, "not_found", "no A2A task is served here");
  const { taskId, principal, action, content } = p;
  if (typeof taskId !== "string" || typeof principal !== "string")
    return refuse(400, "InvalidParams", "taskId and principal: the task waiting and its owner");
  if (action !== "accept" && action !== "decline" && action !== "cancel")
    return refuse(400, "InvalidParams", 'action: "accept", "decline" or "cancel"');
  if (action === "accept" && (typeof content !== "object" || content === null || Array.isArray(content)))
    return refuse(400, "InvalidParams", "content: an object with the requested fields");
  const waiting = source.unfinished().find(({ owner, task }) => owner === principal && task.id === taskId && asksOperator(task));
  if (!waiting) return refuse(404, "TaskNotFound", `no task ${taskId.slice(0, 80)} of ${principal.slice(0, 80)} waits for an answer`);
  try {
    source.send(who, {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      taskId,
      contextId: waiting.task.contextId,
      parts: action === "accept" ? [{ data: content as Record<string, unknown>, mediaType: "application/json" }] : [{ text: action }],
      metadata: { [ELICITATION_ACTION_KEY]: action },
    });
  } catch (e) {
    if (!(e instanceof A2aError)) throw e;
    return refuse(e.kind === "InvalidParams" ? 400 : e.kind === "PermissionDenied" ? 403 : 409, e.kind, e.message);
  }
  return { status: 200, body: { result: { taskId, principal, action } } };
}

type Read = { ok: true; params: Record<string, unknown> } | { ok: false; refused: AnswerResult };

/** A JSON object body (console-body.ts), or the refusal. */
async function readJson(req: Request): Promise<Read> {
  const body = await readConsoleBody(req, "the answer");
  return body.ok ? body : { ok: false, refused: refuse(body.status, body.code, body.message) };
}
