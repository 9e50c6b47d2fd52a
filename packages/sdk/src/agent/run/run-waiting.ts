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
import type { RunEvent } from "../../loop/events.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import type { RunSuspension } from "../../loop/run-suspension.ts";
import { maskSecrets } from "../../secret-values.ts";
import { AgentdError } from "../../wire/errors.ts";
import { LocalDocuments } from "../conversations/local-documents.ts";
import type { DocumentStore } from "../conversations/document-conversations.ts";
import type { AgentApprovals } from "../types/agent-options.ts";
import { localRunsDir, type ResumeLeaseTimes, type WaitingRun, WaitingRuns } from "./waiting-runs.ts";
import type { ActiveRun } from "./run.ts";
import type { AgentRunOptions } from "./run-options.ts";
import { DeskResumer, type DeskResumerParts } from "./desk-resumer.ts";

/** How a resumed run ended, for whoever waits on it in this process; `elsewhere`: another replica resumed it. */
export type ResumedOutcome = { result: RunResult } | { error: unknown } | { elsewhere: string | undefined };

/** Someone in this process waiting on a saved run (a served caller still connected). */
interface Follower {
  onEvent?: (event: RunEvent) => void;
  settle: (outcome: ResumedOutcome) => void;
  /** The agent is stopping (a drain): a caller is told its run stays saved, so its request does not hold the stop. */
  stopping?: () => void;
  /** How the follower's person is asked while the resumed part runs here (see {@link ResumedAsks}). */
  asks?: ResumedAsks;
}

/**
 * Who the resumed part of a run asks, when it is resumed in the process where its first part's asker still
 * follows it: a served MCP caller about the run's questions (`approvals.askCaller`), an A2A task's person
 * about an MCP server's elicitation or missing authorization — as the first part did.
 */
export type ResumedAsks = Pick<AgentRunOptions, "askCaller" | "askOperator" | "askAuthorization">;

/** See the module header. */
export class AgentWaiting {
  private opened: WaitingRuns | undefined;
  private store: DocumentStore | undefined;
  /** The approval desk, once serving built one (its questions are where operators answer). */
  desk: ApprovalDesk | undefined;
  /** Who claims a run for resuming, as its document records it. */
  readonly replica = `pid-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private readonly followers = new Map<string, Set<Follower>>();
  private resumer: DeskResumer | undefined;
  private stopped = false;

  constructor(
    private readonly configured: (DocumentStore & { close?(): Promise<void> }) | undefined,
    /** How long a claim on a run being resumed holds, and how often it is renewed (resume-lease.ts). */
    readonly lease: ResumeLeaseTimes = {},
  ) {}

  /** The waiting-run store: the configured one, else the local state directory. */
  get runs(): WaitingRuns {
    if (!this.opened) {
      const store = this.documents;
      this.opened = new WaitingRuns(async () => store);
    }
    return this.opened;
  }

  /** The document store the waiting runs are kept in (an A2A task whose run waits keeps its record beside it). */
  get documents(): DocumentStore {
    this.store ??= this.configured ?? new LocalDocuments(localRunsDir());
    return this.store;
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
    // Code decides first (`onAsk`), as the channels' order says (run-approvals.ts).
    if (approvals?.onAsk) return undefined;
    const desk = this.desk;
    const kind = run.origin.kind;
    const caller = runOptions.askCaller;
    const toDesk = desk
      ? async (request: ApprovalRequest) => {
          await desk.post(request, {
            principal: run.principal,
            origin: kind,
            timeoutMs: approvals?.timeoutMs,
            askCaller: caller !== undefined,
          });
          caller?.(request);
        }
      : undefined;
    // A served MCP run, an A2A task's run and a triggered run wait at the desk, saved — a served MCP caller
    // asked by elicitation beside it too (a run's own live channel otherwise keeps it in memory).
    if (toDesk && (kind === "mcp" || kind === "a2a" || kind === "trigger") && (!runOptions.askApproval || caller)) return toDesk;
    if (runOptions.askApproval || kind !== "direct" || !approvals) return undefined;
    return toDesk ?? (async () => {});
  }

  /**
   * The approval desk is there (the agent serves one): served runs suspend through it from now on, and a run
   * whose questions are all decided there is resumed by this replica if it claims it (desk-resumer.ts).
   */
  attachDesk(parts: Omit<DeskResumerParts, "waiting">): void {
    if (this.desk) return;
    this.desk = parts.desk;
    this.resumer = new DeskResumer({ ...parts, waiting: this });
    this.resumer.start();
  }

  /** A run was saved waiting: with a desk, its questions may already be decided (resume it then). */
  saved(runId: string): void {
    void this.resumer?.check(runId);
  }

  /** Follow `runId` while it waits; returns the function that stops. */
  private follow(runId: string, follower: Follower): () => void {
    let set = this.followers.get(runId);
    if (!set) this.followers.set(runId, (set = new Set()));
    set.add(follower);
    return () => {
      set.delete(follower);
      if (!set.size) this.followers.delete(runId);
    };
  }

  /** Who the resumed part of `runId` asks here: its followers' askers (see {@link ResumedAsks}); none when nobody follows it. */
  asksOf(runId: string): ResumedAsks {
    const out: ResumedAsks = {};
    for (const f of this.followers.get(runId) ?? []) {
      out.askCaller ??= f.asks?.askCaller;
      out.askOperator ??= f.asks?.askOperator;
      out.askAuthorization ??= f.asks?.askAuthorization;
    }
    return out;
  }

  /** The events hook of whoever follows `runId` here, when someone does. */
  follower(runId: string): { onEvent: (event: RunEvent) => void } | undefined {
    const set = this.followers.get(runId);
    if (!set?.size) return undefined;
    return { onEvent: (e) => set.forEach((f) => f.onEvent?.(e)) };
  }

  /**
   * A served run that ended waiting: the caller still connected here gets its final result when it is
   * resumed in this process (its events too). Resumed by another replica: one line naming it and where its
   * result is read. The caller leaving (`signal`) stops the waiting, not the run: it stays saved.
   */
  untilResumed(
    first: RunResult,
    hooks: {
      onEvent?: (event: RunEvent) => void;
      signal?: AbortSignal;
      releasedOnStop?: boolean;
      asks?: ResumedAsks;
    },
  ): Promise<RunResult> {
    const { runId } = first;
    return new Promise<RunResult>((resolve, reject) => {
      const onAbort = () => {
        off();
        reject(new AgentdError("E_ABORTED", `the caller stopped waiting; run ${runId} waits, saved, for its decisions`));
      };
      const onStop = () => {
        off();
        hooks.signal?.removeEventListener("abort", onAbort);
        reject(
          new AgentdError(
            "E_ABORTED",
            `agentd is shutting down; run ${runId} waits, saved, for its decisions: a process on the same store resumes it, and its result will be in the run history (agent://runs/${runId})`,
          ),
        );
      };
      const off = this.follow(runId, {
        onEvent: hooks.onEvent,
        stopping: hooks.releasedOnStop ? onStop : undefined,
        asks: hooks.asks,
        settle: (outcome) => {
          // Waiting again: still followed until it ends.
          if ("result" in outcome && outcome.result.status === "waiting") return;
          off();
          hooks.signal?.removeEventListener("abort", onAbort);
          if ("result" in outcome) resolve(outcome.result);
          else if ("error" in outcome) reject(outcome.error);
          else
            reject(
              new AgentdError(
                "E_UPSTREAM",
                `run ${runId} was resumed on another replica${outcome.elsewhere ? ` (${outcome.elsewhere})` : ""}: its result is in the run history (agent://runs/${runId})`,
                // Marked so a served caller's surface can read the answer from the fleet's history (serve/resumed-elsewhere.ts).
                { data: { resumedElsewhere: outcome.elsewhere ?? "another replica" } },
              ),
            );
        },
      });
      if (hooks.signal?.aborted) onAbort();
      else if (hooks.releasedOnStop && this.stopped) onStop();
      else hooks.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A resumed run ended (finished, failed, or waiting again): tell who follows it here. */
  resumed(runId: string, outcome: ResumedOutcome): void {
    for (const f of [...(this.followers.get(runId) ?? [])]) f.settle(outcome);
  }

  /**
   * The agent is stopping (a drain): the callers following a saved run here are answered that it waits, saved
   * — a waiting run holds nothing open, so a graceful stop does not wait for it (a later process resumes it).
   */
  releaseFollowers(): void {
    this.stopped = true;
    for (const set of [...this.followers.values()]) for (const f of [...set]) f.stopping?.();
  }

  /** Another replica claimed `runId` first (`by`: its claimer). */
  resumedElsewhere(runId: string, by: string | undefined): void {
    this.resumed(runId, { elsewhere: by });
  }

  /** Stop listening to the desk and release the store (the agent closes). */
  async close(): Promise<void> {
    this.resumer?.close();
    await this.configured?.close?.();
  }
}

/** What a run that waits is saved as (secrets masked in its messages; the waiting calls keep their arguments to be made with). */
export function waitingRunOf(
  run: ActiveRun,
  input: string,
  runOptions: AgentRunOptions,
  suspension: RunSuspension,
  extra: { conversationId?: string; timeoutMs?: number; createdAt?: string; savedBy?: string },
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
    savedBy: extra.savedBy,
    expiresAt: extra.timeoutMs !== undefined ? new Date(now + extra.timeoutMs).toISOString() : undefined,
    suspension: {
      ...suspension,
      messages: maskSecrets(suspension.messages),
      results: maskSecrets(suspension.results),
    },
  };
}
