/**
 * What an A2A task's run asks of a person while it runs, held in memory for the run in flight: an MCP
 * server's elicitation routed to the operators (`input-required` with the question; an operator's reply
 * answers it) and a remote server's authorization the run lacks (`auth-required`; the owner's or an
 * operator's word that it is done retries the server). One question at a time per task.
 */
import type { Logger } from "../../log.ts";
import type { AuthorizationNeed } from "../../mcp/client/authorization-ask.ts";
import type { OperatorQuestion } from "../../mcp/client/elicitation-policies.ts";
import type { ElicitResult } from "../../wire/index.ts";
import { A2aError, TERMINAL_STATES, type Message } from "../shared/types.ts";
import { authorizationDone, authRequiredParts } from "./auth-required.ts";
import { answerOf, questionParts } from "./operator-answer.ts";
import type { Entry, SetStatus } from "./task-entry.ts";
import type { Principal } from "../../serve/principal.ts";

/** Raise `input-required` with the question; resolve with the operator's answer, or `cancel` when `signal` ends the wait. */
export function askOperator(
  e: Entry,
  q: OperatorQuestion,
  signal: AbortSignal,
  setStatus: SetStatus,
  logger: Logger | undefined,
): Promise<ElicitResult> {
  const turn = (e.asking ?? Promise.resolve()).then(
    () =>
      new Promise<ElicitResult>((resolve) => {
        if (signal.aborted || TERMINAL_STATES.has(e.task.status.state)) return resolve({ action: "cancel" });
        const done = (result: ElicitResult) => {
          signal.removeEventListener("abort", onAbort);
          e.question = undefined;
          resolve(result);
        };
        const onAbort = () => done({ action: "cancel" });
        signal.addEventListener("abort", onAbort, { once: true });
        e.question = { schema: q.requestedSchema, answer: done };
        logger?.info("a2a.input_required", { task: e.task.id, principal: e.owner, server: q.server });
        setStatus(e, "TASK_STATE_INPUT_REQUIRED", questionParts(q.message, q.requestedSchema, q.server));
      }),
  );
  e.asking = turn;
  return turn;
}

/** Raise `auth-required` naming the server; resolve true once a follow-up says it is done, false when `signal` ends the wait. */
export function needAuthorization(
  e: Entry,
  need: AuthorizationNeed,
  signal: AbortSignal,
  setStatus: SetStatus,
  logger: Logger | undefined,
): Promise<boolean> {
  const turn = (e.asking ?? Promise.resolve()).then(
    () =>
      new Promise<boolean>((resolve) => {
        if (signal.aborted || TERMINAL_STATES.has(e.task.status.state)) return resolve(false);
        const done = (ok: boolean) => {
          signal.removeEventListener("abort", onAbort);
          e.authorization = undefined;
          resolve(ok);
        };
        const onAbort = () => done(false);
        signal.addEventListener("abort", onAbort, { once: true });
        e.authorization = { server: need.server, done };
        logger?.info("a2a.auth_required", { task: e.task.id, principal: e.owner, server: need.server });
        setStatus(e, "TASK_STATE_AUTH_REQUIRED", authRequiredParts(need));
      }),
  );
  e.asking = turn;
  return turn;
}

/** The owner's (or an operator's) word that the authorization `e` waits on is done: the run retries the server. */
export function authorized(principal: Principal, e: Entry, message: Message, setStatus: SetStatus, logger: Logger | undefined): Entry {
  if (message.contextId && message.contextId !== e.task.contextId)
    throw new A2aError("InvalidParams", `contextId ${message.contextId} is not the context of task ${e.task.id}`);
  const ok = authorizationDone(message);
  const { server, done } = e.authorization!;
  e.task.history = [...(e.task.history ?? []), { ...message, taskId: e.task.id, contextId: e.task.contextId }];
  logger?.info("a2a.authorized", { principal: principal.id, task: e.task.id, server, retry: ok });
  done(ok);
  setStatus(
    e,
    "TASK_STATE_WORKING",
    ok ? `retrying MCP server '${server}' with the new authorization` : `authorization of MCP server '${server}' given up`,
  );
  return e;
}

/** An operator's answer to the question `e` waits on (PermissionDenied for anyone else). */
export function answerOperator(principal: Principal, e: Entry, message: Message, setStatus: SetStatus, logger: Logger | undefined): Entry {
  if (principal.role !== "operator") {
    logger?.warn("a2a.operator.refused", { principal: principal.id, method: "answer", task: e.task.id });
    throw new A2aError(
      "PermissionDenied",
      `task ${e.task.id} waits for an operator's answer: only operators (serve.operators or an operator token) may answer it`,
    );
  }
  if (message.contextId && message.contextId !== e.task.contextId)
    throw new A2aError("InvalidParams", `contextId ${message.contextId} is not the context of task ${e.task.id}`);
  const result = answerOf(message, e.question!.schema);
  e.task.history = [...(e.task.history ?? []), { ...message, taskId: e.task.id, contextId: e.task.contextId }];
  logger?.info("a2a.operator", { principal: principal.id, method: "answer", task: e.task.id, action: result.action });
  e.question!.answer(result);
  setStatus(e, "TASK_STATE_WORKING", `the operator answered (${result.action})`);
  return e;
}
