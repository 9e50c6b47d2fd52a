/**
 * An A2A task whose run waits for an approval, durably. The run does not wait in memory: it suspends, saved
 * (the agent's `agentd.waiting-run` document), its question posted to the approval desk, and holds no model
 * request and no tool call open. The task goes `input-required` with the question (approval-parts.ts), and
 * a small record of the task — its owner, id, context, history and status — is kept beside the saved run
 * (`agentd.a2a-task` under `a2a-task/<hash of the task id>`), written before the task is seen waiting, so
 * that after a restart (or a `kill -9`) the task is found again: GetTask, a follow-up with the decision, a
 * subscription rebuild it from the record and the saved run. A task id names a task only for its owner
 * (another principal's id is "not found"), as in memory; an operator may answer any principal's task.
 *
 * Whichever process or replica resumes the run (the agent's desk resumer, claiming it once), the task
 * follows it: resumed here, it hears the resumed run's events and result; resumed on another replica, it
 * reads the saved run's state until it ends (`resumed`: the answer from the run history, shared through the
 * store in a fleet) or waits again (the next question). The record is kept a week after its last write.
 */
import { sha256 } from "../../_internal/hash.ts";
import type { Logger } from "../../log.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { AuthorizationAsk } from "../../mcp/client/authorization-ask.ts";
import type { OperatorAsk } from "../../mcp/client/elicitation-policies.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import type { Principal } from "../../serve/principal.ts";
import type { RunRecord, RunRegistry } from "../../serve/run-registry.ts";
import { runEnded } from "../../serve/run-record.ts";
import { resultOfEndedRecord } from "../../serve/resumed-elsewhere.ts";
import { AgentdError } from "../../wire/errors.ts";
import { A2aError, TERMINAL_STATES, type Message, type Task, type TaskStatus } from "../shared/types.ts";
import { approvalParts, replyToApproval } from "./approval-parts.ts";
import { type DurableState, type Entry, now, type SetStatus } from "./task-entry.ts";

/**
 * Where the task records are kept: the store the agent's waiting runs are kept in (any versioned document
 * store: a version grows on every write; compare-and-set writes only at the expected one, 0 for absent).
 */
export interface TaskRecordStore {
  get(key: string): Promise<{ version: number; value: unknown } | undefined>;
  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<{ ok: boolean; version: number }>;
}

/** A saved run as the task needs to see it. */
export interface SavedTaskRun {
  state: "waiting" | "resuming" | "resumed";
  /** Who claimed it for resuming (a replica's name), once claimed. */
  claimedBy?: string;
  /** The questions it waits on, in the model's order. */
  pending: ApprovalRequest[];
}

/** How a followed run ended here: its result (finished, or waiting again), its failure, or resumed elsewhere. */
export type FollowedRun = { result: RunResult } | { error: unknown } | { elsewhere: true };

/** What the agent gives its A2A tasks so that their runs wait saved (built in the agent layer). */
export interface A2aRunWaits {
  /** This process's name, as a claim records it. */
  readonly replica: string;
  /** The store the task records are kept in (beside the waiting runs). */
  readonly store: TaskRecordStore;
  /** The saved run `runId`, in any state; undefined when none is kept. */
  saved(runId: string): Promise<SavedTaskRun | undefined>;
  /** Follow the saved run here until it is resumed here (its events, its end) or elsewhere; `signal` stops following. */
  follow(runId: string, hooks: { onEvent: (event: RunEvent) => void; signal: AbortSignal; asks?: TaskAsks }): Promise<FollowedRun>;
}

/** How a task held here is asked by its run (an MCP server's elicitation, a missing authorization): its resumed part too. */
export interface TaskAsks {
  askOperator?: OperatorAsk;
  askAuthorization?: AuthorizationAsk;
}

/** A task's record in the store. */
interface TaskRecord {
  format: "agentd.a2a-task";
  version: 1;
  owner: string;
  runId: string;
  instruction: string;
  task: Task;
  /** Epoch ms: the record is not read after this. */
  retainUntil: number;
}

/** A task found in the store: its record, rebuilt (task-store.ts holds it from then on). */
export type FoundTask = Pick<TaskRecord, "owner" | "runId" | "instruction" | "task">;

const PREFIX = "a2a-task/";
const RETAIN_MS = 7 * 86_400_000;
/** How often a task whose run another replica resumes looks at the saved run (doubling up to the most). */
const POLL_MS = 250;
const POLL_MAX_MS = 5_000;
/** How often a task whose run waits looks at it in case this process missed its resume by another replica. */
const MISSED_MS = 30_000;
/** How long a run resumed elsewhere may take to show its answer in the run history. */
const HISTORY_WAIT_MS = 60_000;

const keyOf = (taskId: string) => `${PREFIX}${sha256(taskId, "hex").slice(0, 40)}`;
const OPERATOR = { operator: true } as const;

/** See the module header. */
export class DurableTaskWaits {
  constructor(
    private readonly waits: A2aRunWaits,
    private readonly desk: ApprovalDesk,
    private readonly registry: RunRegistry,
    private readonly setStatus: SetStatus,
    private readonly logger: Logger | undefined,
  ) {}

  /**
   * The run of `e` ended its first part waiting: follow it until it ends, the task `input-required` while a
   * question of it waits. Resolves with the run's final result; rejects with its failure (or `signal`'s abort).
   */
  async untilDone(
    e: Entry,
    runId: string,
    instruction: string,
    signal: AbortSignal,
    onEvent: (ev: RunEvent) => void,
    asks?: TaskAsks,
  ): Promise<RunResult> {
    e.durable ??= { runId, instruction, pending: [], answered: new Set() };
    let pause = POLL_MS;
    let resumedSince: number | undefined;
    for (;;) {
      signal.throwIfAborted();
      // Followed before the saved state is read: a resume that starts after the read is heard.
      const stop = new AbortController();
      const following = this.waits.follow(runId, { onEvent, signal: AbortSignal.any([signal, stop.signal]), asks });
      const saved = await this.waits.saved(runId);
      if (saved && (saved.state === "waiting" || (saved.state === "resuming" && saved.claimedBy === this.waits.replica))) {
        if (saved.state === "waiting") await this.asking(e, saved.pending);
        const watching = new AbortController();
        const out = await Promise.race([following, this.untilMoved(runId, AbortSignal.any([signal, watching.signal]))]);
        watching.abort();
        if (out === "moved") {
          stop.abort();
          continue;
        }
        if ("error" in out) throw out.error;
        if ("result" in out && out.result.status !== "waiting") return out.result;
        pause = POLL_MS;
        continue;
      }
      stop.abort();
      if (!saved) throw new AgentdError("E_UPSTREAM", `run ${runId} is no longer in the store: the task's outcome is unknown`);
      if (saved.state === "resumed") {
        const answer = await this.answerFromHistory(e);
        if (answer) return answer;
        resumedSince ??= Date.now();
        if (Date.now() - resumedSince > HISTORY_WAIT_MS)
          throw new AgentdError(
            "E_UPSTREAM",
            `run ${runId} was resumed by ${saved.claimedBy ?? "another replica"}: its answer is not in the run history`,
          );
      } else if (e.task.status.state !== "TASK_STATE_WORKING") {
        this.setStatus(e, "TASK_STATE_WORKING", `resumed by ${saved.claimedBy ?? "another replica"}`);
      }
      await sleep(pause, signal);
      pause = Math.min(pause * 2, POLL_MAX_MS);
    }
  }

  /**
   * Resolves `moved` once the saved run is claimed by another replica or gone (never, if `signal` ends first):
   * a slow look, for a decision this process did not hear (its resumer tells the task when it does).
   */
  private async untilMoved(runId: string, signal: AbortSignal): Promise<"moved"> {
    try {
      for (;;) {
        await sleep(MISSED_MS, signal);
        const saved = await this.waits.saved(runId).catch(() => ({ state: "waiting" as const, pending: [] }));
        if (saved === undefined || (saved.state !== "waiting" && saved.claimedBy !== this.waits.replica)) return "moved";
      }
    } catch {
      return new Promise<never>(() => {});
    }
  }

  /** The questions still undecided at the desk: the first is the task's (`input-required`), written to the record first. */
  private async asking(e: Entry, pending: ApprovalRequest[]): Promise<void> {
    const durable = e.durable!;
    durable.pending = await this.undecided(durable, pending);
    const first = durable.pending[0];
    if (!first) return;
    e.approval = { request: first, owner: e.owner };
    this.logger?.info("a2a.approval_waits", { task: e.task.id, principal: e.owner, approval: first.id, saved: true });
    // The record says input-required before anyone can see it so: a kill -9 from then on finds it again.
    await this.save(e, { state: "TASK_STATE_INPUT_REQUIRED", message: statusMessage(e, approvalParts(first)), timestamp: now() });
    // Answered meanwhile (a reply came while the record was written): the task has moved on.
    if (!durable.answered.has(first.id)) this.setStatus(e, "TASK_STATE_INPUT_REQUIRED", approvalParts(first));
  }

  /** The questions neither answered over A2A here nor decided at the desk, in their order. */
  private async undecided(durable: DurableState, pending: ApprovalRequest[]): Promise<ApprovalRequest[]> {
    const open: ApprovalRequest[] = [];
    for (const request of pending) {
      if (durable.answered.has(request.id)) continue;
      const q = await this.desk.get(request.id, OPERATOR).catch(() => undefined);
      if (q?.state !== "decided" && !durable.answered.has(request.id)) open.push(request);
    }
    return open;
  }

  /**
   * A follow-up on a task whose saved run waits: the decision taken at the desk (replyToApproval checks who
   * may), then the task's next question, or working until the run is resumed.
   */
  reply(principal: Principal, e: Entry, message: Message): Entry {
    const waiting = e.approval!;
    if (message.contextId && message.contextId !== e.task.contextId)
      throw new A2aError("InvalidParams", `contextId ${message.contextId} is not the context of task ${e.task.id}`);
    const d = replyToApproval(this.desk, principal, waiting, message, this.logger);
    e.task.history = [...(e.task.history ?? []), { ...message, taskId: e.task.id, contextId: e.task.contextId }];
    const durable = e.durable!;
    durable.answered.add(waiting.request.id);
    durable.pending = durable.pending.filter((r) => r.id !== waiting.request.id);
    const next = durable.pending[0];
    e.approval = next && { request: next, owner: e.owner };
    if (next) this.setStatus(e, "TASK_STATE_INPUT_REQUIRED", approvalParts(next));
    else this.setStatus(e, "TASK_STATE_WORKING", `${d.decision} sent by ${principal.id}`);
    void this.save(e);
    return e;
  }

  /** A task whose run waits saved was canceled: its questions are denied, so no approval can make the call now. */
  canceled(e: Entry): void {
    for (const request of e.durable?.pending ?? [])
      void this.desk
        .decide(request.id, { decision: "deny", reason: "the A2A task was canceled" }, { principal: e.owner, operator: true })
        .catch((err: unknown) => this.logger?.warn("a2a.approval.refused", { approval: request.id, error: String(err) }));
    void this.save(e);
  }

  /** Write the task's record (after its writes before): the status given, else the task's own. */
  save(e: Entry, status?: TaskStatus): Promise<void> {
    const durable = e.durable;
    if (!durable) return Promise.resolve();
    const record: TaskRecord = {
      format: "agentd.a2a-task",
      version: 1,
      owner: e.owner,
      runId: durable.runId,
      instruction: durable.instruction,
      task: { ...e.task, status: status ?? e.task.status },
      retainUntil: Date.now() + RETAIN_MS,
    };
    const write = async () => {
      const store = this.waits.store;
      const key = keyOf(e.task.id);
      for (let i = 0; i < 3; i++) {
        const expected = durable.version ?? (await store.get(key))?.version ?? 0;
        const r = await store.compareAndSet(key, expected, record);
        if (r.ok) return void (durable.version = r.version);
        durable.version = undefined;
      }
      throw new AgentdError("E_STORE", `task ${e.task.id}'s record kept changing while it was written`);
    };
    const done = (durable.writing ?? Promise.resolve()).then(write).catch((err: unknown) => {
      this.logger?.warn("a2a.task-record-failed", { task: e.task.id, error: err instanceof Error ? err.message : String(err) });
    });
    durable.writing = done;
    return done;
  }

  /** The task `taskId` as its record keeps it: `who`'s own (an operator: anyone's); undefined otherwise. */
  async find(taskId: string, who: Principal): Promise<FoundTask | undefined> {
    const stored = await this.waits.store.get(keyOf(taskId));
    const r = stored?.value as Partial<TaskRecord> | undefined;
    if (r?.format !== "agentd.a2a-task" || r.task?.id !== taskId || typeof r.owner !== "string" || typeof r.runId !== "string")
      return undefined;
    if ((r.retainUntil ?? 0) <= Date.now()) return undefined;
    if (r.owner !== who.id && who.role !== "operator") return undefined;
    return { owner: r.owner, runId: r.runId, instruction: r.instruction ?? "", task: r.task };
  }

  /**
   * A task rebuilt from its record, the saved run read once so that what the task says now is what the run
   * says: `ended` (the record says so), `follow` (its questions set; resumed, not ended yet), or how the run
   * ended — resumed to its end while nobody held the task (its answer, or its failure, from the run history).
   */
  async rebuilt(e: Entry, found: FoundTask): Promise<"ended" | "follow" | { result: RunResult } | { error: unknown }> {
    const durable = { runId: found.runId, instruction: found.instruction, pending: [] as ApprovalRequest[], answered: new Set<string>() };
    e.durable = durable;
    if (TERMINAL_STATES.has(e.task.status.state)) return "ended";
    const saved = await this.waits.saved(found.runId);
    if (saved?.state === "waiting") {
      durable.pending = await this.undecided(durable, saved.pending);
      e.approval = durable.pending[0] && { request: durable.pending[0], owner: e.owner };
    }
    if (saved?.state !== "resumed") return "follow";
    try {
      const result = await this.answerFromHistory(e);
      return result ? { result } : "follow";
    } catch (error) {
      return { error };
    }
  }

  /** The answer of a run resumed to its end, from the run history: this replica's record, else the fleet's. */
  private async answerFromHistory(e: Entry): Promise<RunResult | undefined> {
    // A record that is running or waiting is not the answer yet (the run waits again, or its end is not written;
    // the fleet's history lists a run while it waits).
    const local = this.registry.get(e.task.id, e.owner);
    const ownEnd = local && runEnded(local) ? local : undefined;
    const record: RunRecord | undefined = ownEnd ?? (await this.registry.shared?.read(e.task.id, e.owner))?.record;
    if (!record || !runEnded(record)) return undefined;
    if (!ownEnd && e.durable) e.durable.recordedElsewhere = true;
    return resultOfEndedRecord(record, e.durable?.runId ?? e.task.id);
  }
}

function statusMessage(e: Entry, parts: Message["parts"]): Message {
  return { messageId: crypto.randomUUID(), role: "ROLE_AGENT", parts, taskId: e.task.id, contextId: e.task.contextId };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // Unref'd: a task looking at its saved run keeps no process alive.
    const timer = setTimeout(done, ms);
    (timer as { unref?: () => void }).unref?.();
    function done() {
      signal.removeEventListener("abort", done);
      clearTimeout(timer);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
