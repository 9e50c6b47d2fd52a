/**
 * What the agent waits on, for the console's Questions page and a run's page: the tool calls that wait for
 * an approval (from the approval desk, the one source every channel reads) and the questions MCP servers
 * asked an operator through the `operator` elicitation policy (A2A tasks in `input-required`). An operator
 * sees every principal's and may answer them; anyone else sees only the questions of their own runs and may
 * answer none. Each question names the run it belongs to (principal and run id as the run history knows
 * them), so a run's page shows its own.
 *
 * What the view carries is bounded: the desk lists pending questions and those decided in the last hour;
 * the view keeps at most {@link QUESTION_LIMITS} of each, and arguments as masked JSON cut to a length.
 */
import type { Message, Task } from "../../a2a/shared/types.ts";
import type { ApprovalDesk, PendingApproval } from "../../loop/approvals/approval-desk.ts";
import { scrubSecrets } from "../../log.ts";
import { LOCAL_PRINCIPAL, type Principal, scopedRunId } from "../../serve/principal.ts";

/** The bounds of what one view lists. */
export const QUESTION_LIMITS = Object.freeze({ pending: 100, decided: 50, argumentsChars: 2000, messageChars: 2000 });

/** The A2A side: the unfinished tasks (those in `input-required` wait on an operator) and the answer path. */
export interface ElicitationSource {
  unfinished(): { owner: string; task: Task }[];
  /** Send a follow-up message on a task as `caller` (the A2A `SendMessage` path: an operator's answer). */
  send?(caller: Principal, message: Message): unknown;
}

/** A tool call waiting for (or given) a decision, as the console shows it. */
export interface ApprovalView {
  kind: "approval";
  id: string;
  state: "pending" | "decided";
  tool: string;
  server?: string;
  name: string;
  /** The arguments, masked by the desk, as JSON cut to {@link QUESTION_LIMITS.argumentsChars}. */
  arguments: string;
  digest: string;
  rule: string;
  requestedAt: string;
  expiresAt?: string;
  origin: string;
  /** The run it belongs to, as the run history names it. */
  run: { principal: string; runId: string };
  decision?: { decision: string; by: string; at: string; reason?: string };
}

/** An operator elicitation an A2A task waits on. */
export interface ElicitationView {
  kind: "elicitation";
  /** The task's id (the run's id in the history). */
  id: string;
  contextId: string;
  server?: string;
  message: string;
  requestedSchema: Record<string, unknown>;
  requestedAt: string;
  run: { principal: string; runId: string };
}

/** The questions one principal sees. */
export interface QuestionsView {
  approvals: ApprovalView[];
  elicitations: ElicitationView[];
  /** Whether tool approvals are served here at all (an agent without the desk has none to list). */
  approvalsServed: boolean;
  /** Why the desk could not be read just now (its store is down): the page says so instead of "none". */
  approvalsUnavailable?: string;
}

/** The questions `who` may see. */
export async function questionsFor(
  who: Principal,
  sources: { desk?: ApprovalDesk; elicitations?: ElicitationSource },
): Promise<QuestionsView> {
  const operator = who.role === "operator";
  let listed: PendingApproval[] = [];
  let unavailable: string | undefined;
  try {
    listed = sources.desk ? await sources.desk.list({ principal: who.id, operator }) : [];
  } catch (e) {
    // A store that is down costs the approvals of this view, never the rest of the console.
    unavailable = scrubSecrets(e instanceof Error ? e.message : String(e));
  }
  const pending = listed.filter((p) => p.state === "pending").slice(0, QUESTION_LIMITS.pending);
  // The newest decisions, bounded.
  const decided = listed.filter((p) => p.state === "decided").slice(-QUESTION_LIMITS.decided);
  const elicitations = (sources.elicitations?.unfinished() ?? [])
    .filter(({ owner, task }) => asksOperator(task) && (operator || owner === who.id))
    .slice(0, QUESTION_LIMITS.pending)
    .map(({ owner, task }) => elicitationView(owner, task));
  return {
    approvals: [...pending, ...decided].map(approvalView),
    elicitations,
    approvalsServed: sources.desk !== undefined,
    ...(unavailable ? { approvalsUnavailable: unavailable } : {}),
  };
}

/**
 * The desk as the console's views read it: a listing is reused for up to a second per viewer, unless the desk
 * heard of a change meanwhile — so open pages (each stream re-checks every 2 s) do not each read the store.
 */
export function viewedDesk(desk: ApprovalDesk, maxAgeMs = 1000): ApprovalDesk {
  const listed = new Map<string, { at: number; list: Promise<PendingApproval[]> }>();
  desk.watch(() => listed.clear());
  return {
    list(viewer) {
      const key = `${viewer.operator}\n${viewer.principal ?? ""}`;
      const held = listed.get(key);
      if (held && Date.now() - held.at < maxAgeMs) return held.list;
      const list = desk.list(viewer);
      listed.set(key, { at: Date.now(), list });
      // A failed read is not kept.
      list.catch(() => listed.delete(key));
      return list;
    },
    get: (id, viewer) => desk.get(id, viewer),
    decide: (id, decision, viewer) => desk.decide(id, decision, viewer),
    post: (request, run) => desk.post(request, run),
    watch: (listener) => desk.watch(listener),
    channelFor: (run) => desk.channelFor(run),
  };
}

/** The run history's name of the run a question's (agent-side) run id belongs to. */
export function runOf(runId: string, principal: string | undefined): { principal: string; runId: string } {
  const owner = principal ?? LOCAL_PRINCIPAL;
  // A served run's agent-side id is scoped to its principal (`ID@digest`); the history knows it as `ID`.
  const at = runId.lastIndexOf("@");
  if (at > 0) {
    const plain = runId.slice(0, at);
    if (scopedRunId({ id: owner, role: "user" }, plain) === runId) return { principal: owner, runId: plain };
  }
  return { principal: owner, runId };
}

function approvalView(p: PendingApproval): ApprovalView {
  const r = p.request;
  const args = scrubSecrets(JSON.stringify(r.arguments ?? {}));
  return {
    kind: "approval",
    id: r.id,
    state: p.state,
    tool: r.tool,
    ...(r.server ? { server: r.server } : {}),
    name: r.name,
    arguments: cut(args, QUESTION_LIMITS.argumentsChars),
    digest: r.digest,
    rule: r.rule.label,
    requestedAt: r.requestedAt,
    ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}),
    origin: p.origin,
    run: runOf(r.runId, p.principal),
    ...(p.decision
      ? {
          decision: {
            decision: p.decision.decision,
            by: p.decision.by,
            at: p.decision.at,
            ...(p.decision.reason ? { reason: cut(scrubSecrets(p.decision.reason), QUESTION_LIMITS.messageChars) } : {}),
          },
        }
      : {}),
  };
}

/**
 * Whether a task waits on an operator's answer to an elicitation: `input-required` with a requested schema
 * (a task whose run waits for a tool approval is `input-required` too, but that question is the desk's).
 */
export function asksOperator(task: Task): boolean {
  if (task.status.state !== "TASK_STATE_INPUT_REQUIRED") return false;
  const data = task.status.message?.parts.find((p) => p.data !== undefined)?.data as Record<string, unknown> | undefined;
  return typeof data?.requestedSchema === "object" && data.requestedSchema !== null && data.kind === undefined;
}

/** The question an `input-required` task carries in its status message: its words, then the schema and the server. */
function elicitationView(owner: string, task: Task): ElicitationView {
  const parts = task.status.message?.parts ?? [];
  const words = parts.map((p) => p.text ?? "").join("");
  const data = parts.find((p) => p.data !== undefined)?.data as { requestedSchema?: Record<string, unknown>; server?: string } | undefined;
  return {
    kind: "elicitation",
    id: task.id,
    contextId: task.contextId,
    ...(typeof data?.server === "string" ? { server: data.server } : {}),
    message: cut(scrubSecrets(words), QUESTION_LIMITS.messageChars),
    requestedSchema: data?.requestedSchema ?? {},
    requestedAt: task.status.timestamp ?? "",
    run: { principal: owner, runId: task.id },
  };
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
