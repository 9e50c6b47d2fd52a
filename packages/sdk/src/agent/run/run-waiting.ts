/**
 * The agent's side of runs that wait durably for a person's decision: where they are saved (the waiting-run
 * store, opened on first use), who is told a question was asked (an approval desk when the agent serves one,
 * else nobody but the saved run), which runs suspend at all, and the in-process notice a resumed run's
 * result is given to whoever still waits on it here (a served caller still connected).
 *
 * Which runs suspend (when a call needs a decision and the run has no channel to ask — no run's own
 * `askApproval`, no `approvals.onAsk`): every run of an agent with an approval desk (served, triggered and
 * direct alike); without a desk, a direct `agent.run()` of an agent with `approvals` configured (the SDK's
 * `run → waiting → resume`). Anything else keeps the denial "nobody could be asked" — `agentd run --cron`'s
 * triggered runs among them, which no one would resume.
 */
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import type { RunSuspension } from "../../loop/run-suspension.ts";
import { maskSecrets } from "../../secret-values.ts";
import { LocalDocuments } from "../conversations/local-documents.ts";
import type { DocumentStore } from "../conversations/document-conversations.ts";
import type { AgentApprovals } from "../types/agent-options.ts";
import { localRunsDir, type WaitingRun, WaitingRuns } from "./waiting-runs.ts";
import type { ActiveRun } from "./run.ts";
import type { AgentRunOptions } from "./run-options.ts";

/** How a resumed run ended, for whoever waits on it in this process. */
export type ResumedOutcome = { result: RunResult } | { error: unknown };

/** See the module header. */
export class AgentWaiting {
  private opened: WaitingRuns | undefined;
  /** The approval desk, once serving built one (its questions are where operators answer). */
  desk: ApprovalDesk | undefined;
  /** Who claims a run for resuming, as its document records it. */
  readonly replica = `pid-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private readonly listeners = new Map<string, Set<(outcome: ResumedOutcome) => void>>();

  constructor(private readonly configured: (DocumentStore & { close?(): Promise<void> }) | undefined) {}

  /** The waiting-run store: the configured one, else the local state directory. */
  get runs(): WaitingRuns {
    if (!this.opened) {
      const store = this.configured ?? new LocalDocuments(localRunsDir());
      this.opened = new WaitingRuns(async () => store);
    }
    return this.opened;
  }

  /**
   * The question hook of a run that suspends (see the module header), or undefined when it does not: a call
   * needing a decision is then asked of its channel, or denied with nobody to ask.
   */
  suspendFor(
    approvals: AgentApprovals | undefined,
    runOptions: AgentRunOptions,
    run: ActiveRun,
  ): ((r: ApprovalRequest) => Promise<void>) | undefined {
    if (runOptions.askApproval || approvals?.onAsk) return undefined;
    const desk = this.desk;
    if (desk)
      return async (request) =>
        void (await desk.post(request, { principal: run.principal, origin: run.origin.kind, timeoutMs: approvals?.timeoutMs }));
    if (run.origin.kind === "direct" && approvals) return async () => {};
    return undefined;
  }

  /** Hear the outcome of `runId` when it is next resumed to an end in this process; returns the unsubscribe. */
  onResumed(runId: string, listener: (outcome: ResumedOutcome) => void): () => void {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size) this.listeners.delete(runId);
    };
  }

  /** A resumed run ended (finished, failed, or waiting again): tell who listens here. */
  resumed(runId: string, outcome: ResumedOutcome): void {
    for (const l of [...(this.listeners.get(runId) ?? [])]) l(outcome);
  }

  /** Release the store (the agent closes). */
  async close(): Promise<void> {
    await this.configured?.close?.();
  }
}

/** What a run that waits is saved as (secrets masked in its messages; the waiting calls keep their arguments to be made with). */
export function waitingRunOf(
  run: ActiveRun,
  input: string,
  runOptions: AgentRunOptions,
  suspension: RunSuspension,
  extra: { conversationId?: string; timeoutMs?: number; createdAt?: string },
): WaitingRun {
  const origin = run.origin;
  const now = Date.now();
  return {
    runId: run.id,
    origin:
      origin.kind === "trigger"
        ? {
            kind: "trigger",
            trigger: origin.trigger,
            event: origin.event && { ...origin.event, firedAt: origin.event.firedAt.toISOString() },
          }
        : { kind: origin.kind },
    principal: run.principal,
    trigger: run.trigger,
    input,
    limits: run.limits,
    outputSchema: runOptions.outputSchema,
    maxOutputRetries: runOptions.maxOutputRetries,
    traceContext: run.traceContext,
    conversationId: extra.conversationId,
    createdAt: extra.createdAt ?? new Date(now).toISOString(),
    expiresAt: extra.timeoutMs !== undefined ? new Date(now + extra.timeoutMs).toISOString() : undefined,
    suspension: {
      ...suspension,
      messages: maskSecrets(suspension.messages),
      results: maskSecrets(suspension.results),
    },
  };
}
