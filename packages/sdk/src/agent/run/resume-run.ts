/**
 * `agent.resume(runId, decisions)`: continue a run that stopped to wait for a person's decision — in this
 * process or another one, on this replica or another. The saved run is claimed (compare-and-set, so it
 * resumes once across processes and replicas; the claim is a lease renewed while it resumes, and a run whose
 * claimer died is taken over once the lease lapses, its approved calls made at most once: resume-lease.ts),
 * its decisions applied — approved: the tool is called
 * once with the saved arguments; denied: the model reads the denial; always: that tool is allowed for the
 * rest of this run; a decision for other arguments denies — and the loop goes on to the end or the next wait.
 * The same run id, a new Run going `starting → running`; its budgets count what the first part used, and
 * its deadline counts running time only (the wait is not counted: a question's own bound is
 * `approvals.timeout`, whose decision applies to a question left unanswered past it).
 */
import type { ApprovalDecision } from "../../loop/approvals/approval-types.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentOptions } from "../types/agent-options.ts";
import { journaledTools, ResumeLease } from "./resume-lease.ts";
import type { WaitingRun } from "./waiting-runs.ts";
import type { RunOrigin } from "./run.ts";
import { admit, driveRun, type RunParts } from "./run-agent.ts";
import type { AgentRunOptions } from "./run-options.ts";

/** Decisions on a waiting run's questions, by approval request id (`apr-…`). */
export type ApprovalDecisions = Readonly<Record<string, ApprovalDecision>> | ReadonlyMap<string, ApprovalDecision>;

/** Options of `agent.resume`: the resumed part's listener, signal and approval channel. */
export type ResumeOptions = Pick<AgentRunOptions, "signal" | "onEvent" | "askApproval" | "stream" | "backpressure" | "onStart">;

const usage = (line: string) => new AgentdError("E_USAGE", line);

/** The Run's origin as it was saved. */
function originOf(saved: WaitingRun["origin"]): RunOrigin {
  if (saved.kind === "trigger")
    return {
      kind: "trigger",
      trigger: saved.trigger ?? "",
      event: saved.event && { ...saved.event, firedAt: new Date(saved.event.firedAt) },
    };
  return { kind: saved.kind as Exclude<RunOrigin["kind"], "trigger"> };
}

/**
 * The decision on each question: the one given, else the timeout's when the question expired; a question
 * with neither, or a decision for a question the run does not wait on, is one E_USAGE line.
 */
export function decisionsFor(
  saved: WaitingRun,
  given: ApprovalDecisions,
  options: AgentOptions,
  now = Date.now(),
): Map<string, ApprovalDecision> {
  const byId = new Map(given instanceof Map ? given : Object.entries(given as Record<string, ApprovalDecision>));
  const pending = saved.suspension.pending.map((p) => p.request);
  const unknown = [...byId.keys()].filter((id) => !pending.some((r) => r.id === id));
  if (unknown.length)
    throw usage(`run ${saved.runId} does not wait on ${unknown.join(", ")}: it waits on ${pending.map((r) => r.id).join(", ")}`);
  const expired = saved.expiresAt !== undefined && Date.parse(saved.expiresAt) <= now;
  const out = new Map<string, ApprovalDecision>();
  const missing: string[] = [];
  for (const r of pending) {
    const d = byId.get(r.id);
    if (d) out.set(r.id, d);
    else if (expired)
      out.set(r.id, { decision: options.approvals?.onTimeout ?? "deny", by: "timeout", reason: `no decision by ${saved.expiresAt}` });
    else missing.push(`${r.id} (${r.name})`);
  }
  if (missing.length) throw usage(`run ${saved.runId} needs a decision on each question it waits on; missing: ${missing.join(", ")}`);
  return out;
}

/** The one line for a run that is not (or no longer) waiting: resumed, or being resumed (by whom, until when). */
function notWaiting(runId: string, state: "resuming" | "resumed", by: string | undefined, leaseUntil?: number): AgentdError {
  const who = by ? ` (by ${by})` : "";
  if (state === "resumed") return usage(`run ${runId} was already resumed${who}: a waiting run resumes once`);
  const until =
    leaseUntil !== undefined
      ? `; if that process died, its claim lapses at ${new Date(leaseUntil).toISOString()} and the run may be taken over then`
      : "";
  return new AgentdError("E_USAGE", `run ${runId} is already being resumed${who}: a waiting run resumes once${until}`, {
    data: { resumedBy: by ?? "unknown" },
  });
}

/** Whether `e` says another process resumes (or resumed) the run. */
export const isResumedElsewhere = (e: unknown): boolean =>
  AgentdError.isInstance(e) && e.code === "E_USAGE" && /already (being )?resumed/.test(e.message);

/** The agent's `resume`: see the module header. */
export function createResume(
  options: AgentOptions,
  parts: RunParts,
): (runId: string, decisions: ApprovalDecisions, resumeOptions?: ResumeOptions) => Promise<RunResult> {
  const { lifecycle, logger, waiting } = parts;
  return async (runId, decisions, resumeOptions = {}) => {
    admit(options, lifecycle);
    const held = await waiting.runs.get(runId);
    if (!held)
      throw usage(
        `no run ${runId} waits for a decision in this agent's store: check the run id (agent.run() returned it with status "waiting")`,
      );
    const doc = held.document;
    if (doc.state === "resumed" || (doc.state === "resuming" && !waiting.runs.lapsed(doc)))
      throw notWaiting(runId, doc.state, doc.claimedBy, doc.leaseUntil);
    const given = decisionsFor(doc.run, decisions, options);
    const claim = await waiting.runs.claim(runId, waiting.replica, Object.fromEntries(given), waiting.lease.leaseMs);
    if (!claim.ok) throw notWaiting(runId, claim.state === "resumed" ? "resumed" : "resuming", claim.by, claim.leaseUntil);
    const saved = claim.run;
    // A takeover goes on with the decisions its predecessor resumed with: a question is decided once.
    const applied = claim.takenOverFrom ? new Map(Object.entries(claim.document.decisions ?? {})) : given;
    const origin = originOf(saved.origin);
    // Whoever the first part asked (a served caller, an A2A task's person), still following the run here, is asked again.
    const asks = waiting.asksOf(runId);
    const run = lifecycle.runs.begin({
      askOperator: asks.askOperator,
      askAuthorization: asks.askAuthorization,
      id: runId,
      origin,
      principal: saved.principal,
      trigger: saved.trigger,
      limits: saved.limits,
      traceContext: saved.traceContext,
      signal: resumeOptions.signal,
      logger,
    });
    const lease = new ResumeLease(waiting.runs, claim, waiting.lease, (reason) => {
      logger.warn("run.claim-lost", { runId, reason });
      run.cancel(new AgentdError("E_ABORTED", reason));
    });
    run.resumes = lease;
    lease.start();
    const waitedMs = Date.now() - Date.parse(saved.createdAt);
    if (claim.takenOverFrom)
      logger.warn("run.taken-over", { runId, from: claim.takenOverFrom, calls: Object.keys(claim.document.calls ?? {}).length });
    logger.info("run.resumed", {
      runId,
      decisions: applied.size,
      waitedMs,
      ...(claim.takenOverFrom ? { takenOverFrom: claim.takenOverFrom } : {}),
    });
    resumeOptions.onStart?.(run);
    const runOptions: AgentRunOptions = {
      ...resumeOptions,
      ...asks,
      runId,
      origin,
      principal: saved.principal,
      trigger: saved.trigger,
      outputSchema: saved.outputSchema,
      maxOutputRetries: saved.maxOutputRetries,
      traceContext: saved.traceContext,
    };
    const ended = async () => {
      lease.stop();
      if (!run.suspended) await lease.finish().catch((e) => logger.warn("run.resume-record-failed", { runId, error: String(e) }));
    };
    // The approved calls of the turn it stopped in go through the claim's journal (made at most once).
    const journaled = { ...parts, toolSet: journaledTools(parts.toolSet, lease, saved.suspension.pending, claim) };
    try {
      const result = await driveRun(options, journaled, run, saved.input, runOptions, {
        suspension: saved.suspension,
        decisions: applied,
        conversation: saved.conversation,
      });
      await ended();
      waiting.resumed(runId, { result });
      return result;
    } catch (e) {
      await ended();
      waiting.resumed(runId, { error: e });
      throw e;
    }
  };
}
