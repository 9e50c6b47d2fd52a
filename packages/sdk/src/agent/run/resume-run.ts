/**
 * `agent.resume(runId, decisions)`: continue a run that stopped to wait for a person's decision — in this
 * process or another one, on this replica or another. The saved run is claimed (compare-and-set, so it
 * resumes exactly once across processes and replicas), its decisions applied — approved: the tool is called
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
    const already = (by?: string) => usage(`run ${runId} was already resumed${by ? ` (by ${by})` : ""}: a waiting run resumes once`);
    if (held.document.state !== "waiting") throw already(held.document.claimedBy);
    const given = decisionsFor(held.document.run, decisions, options);
    const claim = await waiting.runs.claim(runId, waiting.replica);
    if (!claim.ok) throw already();
    const saved = claim.run;
    const origin = originOf(saved.origin);
    const run = lifecycle.runs.begin({
      id: runId,
      origin,
      principal: saved.principal,
      trigger: saved.trigger,
      limits: saved.limits,
      traceContext: saved.traceContext,
      signal: resumeOptions.signal,
      logger,
    });
    run.resumes = { claimVersion: claim.version };
    logger.info("run.resumed", { runId, decisions: given.size, waitedMs: Date.now() - Date.parse(saved.createdAt) });
    resumeOptions.onStart?.(run);
    const runOptions: AgentRunOptions = {
      ...resumeOptions,
      runId,
      origin,
      principal: saved.principal,
      trigger: saved.trigger,
      outputSchema: saved.outputSchema,
      maxOutputRetries: saved.maxOutputRetries,
      traceContext: saved.traceContext,
    };
    const ended = async () => {
      if (!run.suspended)
        await waiting.runs.finish(runId, claim.version).catch((e) => logger.warn("run.resume-record-failed", { runId, error: String(e) }));
    };
    try {
      const result = await driveRun(options, parts, run, saved.input, runOptions, { suspension: saved.suspension, decisions: given });
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
