/**
 * The translation between A2A tasks and agentd runs. An A2A task is a run of the principal that sent the
 * message, recorded in the same principal-scoped {@link RunRegistry} as `agent.run` (so `agent://status`
 * counts it); its `contextId` names the sender's durable conversation (docs/conversations.md: a new task in
 * a known context is a run continuing it, wherever and whenever the context began; `contexts.ts` admits
 * the id); progress becomes `TASK_STATE_WORKING` status updates; the answer is the artifact
 * `result` (text, or a data part for structured output). A task id names a task only within its owner's
 * tasks: another principal's id is "not found", never "forbidden".
 */
import type { TraceCarrier } from "../../loop/trace-context.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import {
  A2aError,
  TERMINAL_STATES,
  type Artifact,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
} from "../shared/types.ts";
import { scopedRunId, type Principal } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import type { ServedRunner } from "../../serve/served-mcp.ts";
import type { Logger } from "../../log.ts";
import type { OperatorQuestion } from "../../mcp/client/elicitation-policies.ts";
import { askOnTask, replyToApproval, type SetTaskStatus } from "./approval-parts.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import { promptInstructionOf } from "./prompt-skills.ts";
import type { ServedPrompt } from "../../serve/served-prompts.ts";
import type { AuthorizationNeed } from "../../mcp/client/authorization-ask.ts";
import { askOperator, answerOperator, authorized, needAuthorization } from "./task-questions.ts";
import { type Entry, instructionOf, now, stateWord } from "./task-entry.ts";
import { type A2aRunWaits, DurableTaskWaits, type TaskAsks } from "./task-durable-wait.ts";
import { RUN_ID_META_KEY } from "../../mcp/protocol/meta.ts";
import type { ServedRuns } from "../../serve/served-runs.ts";
import { answeredElsewhere, claimServedRun, failureOf, recordSucceeded, type ServedClaim } from "../../serve/run-once.ts";

/** Task metadata: the run id of the agent that sent the message, when it sent one (an agentd client does). */
export const CALLER_RUN_ID_KEY = "agentd.dev/caller-run-id";

/** Who sent an A2A request: the principal, and the W3C trace context its HTTP request carried. */
export type A2aCaller = Principal & { traceContext?: TraceCarrier };

/** Bounds of what the task store keeps. */
export interface A2aTaskLimits {
  /** Finished tasks kept per principal (oldest finished go first). Default 100. */
  maxTasksPerPrincipal?: number;
  /** Tasks one principal may have unfinished at once (a new one past it is refused). Default 32. */
  maxUnfinishedPerPrincipal?: number;
}

/** How the tasks route MCP elicitations (the `operator` policy) to operators. */
export interface A2aOperatorRouting {
  /** Whether any principal is an operator; without one, questions are not raised (the policy declines). */
  hasOperators: boolean;
  logger?: Logger;
  /** The served prompt named (a message's `{ "prompt": NAME }` data part runs its expansion). */
  prompt?: (name: string) => ServedPrompt | undefined;
  /** The agent's approval desk: a run's call waiting for approval makes its task `input-required` until decided. */
  approvals?: ApprovalDesk;
  /** With the desk: a run that waits for approval is saved and the task found again after a restart (task-durable-wait.ts). */
  runWaits?: A2aRunWaits;
}

/** The A2A tasks of every principal, each backed by an agentd run. */
export class A2aTasks {
  private readonly tasks = new Map<string, Entry>();
  private readonly maxPerOwner: number;
  private readonly maxUnfinished: number;
  /** Runs that wait for approval saved, their tasks found again after a restart; absent: they wait in memory. */
  private readonly durable: DurableTaskWaits | undefined;
  /** Tasks being read back from the store, by who asked and the task id. */
  private readonly loading = new Map<string, Promise<void>>();

  constructor(
    private readonly runner: ServedRunner,
    private readonly registry: RunRegistry,
    limits: A2aTaskLimits = {},
    /** Every event of every task (push delivery). */
    private readonly onEvent?: (owner: string, taskId: string, event: StreamResponse) => void,
    private readonly routing: A2aOperatorRouting = { hasOperators: false },
    /** A message's id runs once across replicas sharing this store (serve/served-runs.ts). */
    private readonly servedRuns?: ServedRuns,
  ) {
    this.maxPerOwner = limits.maxTasksPerPrincipal ?? 100;
    this.maxUnfinished = limits.maxUnfinishedPerPrincipal ?? 32;
    const { approvals, runWaits, logger } = routing;
    this.durable = approvals && runWaits ? new DurableTaskWaits(runWaits, approvals, registry, this.setStatus, logger) : undefined;
  }

  /** `owner`'s task `id`, or TaskNotFound. */
  get(owner: string, id: string): Entry {
    const e = this.tasks.get(`${owner}\n${id}`);
    if (!e) throw new A2aError("TaskNotFound", `task ${id} not found`);
    return e;
  }

  /** `owner`'s tasks, most recently updated first. */
  list(owner: string): Task[] {
    return [...this.tasks.values()]
      .filter((e) => e.owner === owner)
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((e) => e.task);
  }

  /** Every principal's tasks that have not ended, with their owners (the operator's view). */
  unfinished(): { owner: string; task: Task }[] {
    return [...this.tasks.values()].filter((e) => !TERMINAL_STATES.has(e.task.status.state)).map((e) => ({ owner: e.owner, task: e.task }));
  }

  /** Listen to a task's events until it ends a stream; returns the unsubscribe. */
  subscribe(owner: string, id: string, listener: (e: StreamResponse) => void): () => void {
    const e = this.get(owner, id);
    e.listeners.add(listener);
    return () => e.listeners.delete(listener);
  }

  /** Start a task for a user message (a follow-up on a finished task is refused, as the spec asks). */
  send(principal: A2aCaller, message: Message, prepare?: (task: Task) => void): Entry {
    if (message.taskId) {
      const existing = this.forAnswer(principal, message.taskId);
      if (existing.question) return answerOperator(principal, existing, message, this.setStatus, this.routing.logger);
      if (existing.authorization) return authorized(principal, existing, message, this.setStatus, this.routing.logger);
      if (existing.durable && existing.approval && this.durable) return this.durable.reply(principal, existing, message);
      if (existing.approval && this.routing.approvals) {
        const d = replyToApproval(this.routing.approvals, principal, existing.approval, message, this.routing.logger);
        existing.task.history = [
          ...(existing.task.history ?? []),
          { ...message, taskId: existing.task.id, contextId: existing.task.contextId },
        ];
        this.setStatus(existing, "TASK_STATE_WORKING", `${d.decision} sent by ${principal.id}`);
        return existing;
      }
      throw new A2aError(
        "UnsupportedOperation",
        `task ${message.taskId} is ${stateWord(existing.task.status.state)}: it takes no further messages; send without taskId (same contextId) to follow up`,
      );
    }
    const unfinished = this.unfinished().filter((u) => u.owner === principal.id).length;
    if (unfinished >= this.maxUnfinished)
      throw new A2aError(
        "UnsupportedOperation",
        `${unfinished} of your tasks are unfinished (the limit): wait for one to end or cancel one`,
      );
    const text = promptInstructionOf(message, this.routing.prompt) ?? instructionOf(message);
    if (!text.trim()) throw new A2aError("InvalidParams", "the message has no text or data part to run");
    const id = crypto.randomUUID();
    const contextId = message.contextId || crypto.randomUUID();
    const userMessage: Message = { ...message, taskId: id, contextId };
    // The run ids on both sides: the caller's (an agentd client sends its own under RUN_ID_META_KEY) and ours.
    const callerRunId = typeof message.metadata?.[RUN_ID_META_KEY] === "string" ? (message.metadata[RUN_ID_META_KEY] as string) : undefined;
    const metadata = { [RUN_ID_META_KEY]: scopedRunId(principal, id), [CALLER_RUN_ID_KEY]: callerRunId || undefined };
    const task: Task = { id, contextId, status: { state: "TASK_STATE_SUBMITTED", timestamp: now() }, history: [userMessage], metadata };
    this.routing.logger?.info("a2a.task", {
      principal: principal.id,
      task: id,
      contextId,
      runId: metadata[RUN_ID_META_KEY],
      callerRunId: callerRunId || undefined,
    });
    const entry: Entry = {
      owner: principal.id,
      task,
      updatedAt: Date.now(),
      controller: new AbortController(),
      listeners: new Set(),
    };
    this.tasks.set(`${principal.id}\n${id}`, entry);
    this.trim(principal.id);
    prepare?.(task);
    void this.execute(principal, entry, text, message.messageId);
    return entry;
  }

  /** Cancel a task that has not ended (TaskNotCancelable otherwise). */
  cancel(owner: string, id: string): Task {
    const e = this.get(owner, id);
    if (TERMINAL_STATES.has(e.task.status.state))
      throw new A2aError("TaskNotCancelable", `task ${id} is ${stateWord(e.task.status.state)}: it cannot be canceled`);
    e.controller.abort(new AgentdError("E_ABORTED", "canceled by the A2A client"));
    if (e.durable) this.durable?.canceled(e);
    this.setStatus(e, "TASK_STATE_CANCELED", "canceled by the client");
    return e.task;
  }

  private async execute(principal: A2aCaller, e: Entry, instruction: string, messageId: string): Promise<void> {
    const { id, contextId } = e.task;
    this.registry.start(id, instruction, principal.id, { via: "a2a", conversationId: contextId });
    this.setStatus(e, "TASK_STATE_WORKING");
    // Across replicas, a message (its `messageId`, per principal) runs once: the task stays working while
    // another replica runs it (the caller polls it) and completes with that replica's answer.
    const claim = await claimServedRun(this.servedRuns, scopedRunId(principal, `a2a:${messageId}`), e.controller.signal, {
      waitMs: Number.POSITIVE_INFINITY,
    });
    if (claim.status !== "run") return this.settledElsewhere(principal, e, claim);
    try {
      const runId = String(e.task.metadata?.[RUN_ID_META_KEY] ?? scopedRunId(principal, id));
      const onEvent = (ev: RunEvent) => this.progress(principal.id, e, ev);
      // A run that waits for approval ends its first part saved: the task follows it until it ends (its claim held).
      const untilDone = (r: RunResult, signal: AbortSignal) =>
        r.status === "waiting" && this.durable ? this.durable.untilDone(e, runId, instruction, signal, onEvent, this.asksOf(e)) : r;
      const result = await claim.run((signal) =>
        this.runner
          .run(instruction, {
            runId,
            signal,
            origin: { kind: "a2a" },
            principal: principal.id,
            conversation: contextId, // the sender's conversation of this context: its earlier exchanges go to the model
            traceContext: principal.traceContext,
            onEvent,
            ...this.asksOf(e),
            // Saved instead when the task can follow a saved run (the desk's `post`: run-waiting.ts).
            askApproval:
              this.routing.approvals && !this.durable
                ? (r, s) => askOnTask(this.routing.approvals!, e, principal.id, r, s, this.moveTo(e))
                : undefined,
          })
          .then((r) => untilDone(r, signal)),
      );
      this.ended(principal.id, e, result);
    } catch (err) {
      this.ended(principal.id, e, undefined, err);
    }
  }

  /** How the run of task `e` (its resumed part too, while the task is held here) asks its person: on the task. */
  private asksOf(e: Entry): TaskAsks {
    return {
      askOperator: this.routing.hasOperators
        ? (q: OperatorQuestion, s: AbortSignal) => askOperator(e, q, s, this.setStatus, this.routing.logger)
        : undefined,
      askAuthorization: (need: AuthorizationNeed, s: AbortSignal) => needAuthorization(e, need, s, this.setStatus, this.routing.logger),
    };
  }

  /** The task's run ended: its record in the run history (unless `record` is false: it is there), and the task completed, failed or canceled. */
  private ended(owner: string, e: Entry, result: RunResult | undefined, err?: unknown, record = true): void {
    const { id } = e.task;
    // Resumed and recorded by another replica: this one's record of the task leaves (the fleet's history has that one).
    if (record && e.durable?.recordedElsewhere) {
      this.registry.recordedElsewhere(id, owner);
      record = false;
    }
    if (result) {
      if (record) recordSucceeded(this.registry, id, result, owner);
      if (e.task.status.state !== "TASK_STATE_CANCELED") this.complete(e, result);
    } else {
      const { code, message } = failureOf(err);
      if (record) this.registry.fail(id, { code, message }, undefined, owner);
      // A run cancelled from outside the task (a shutdown whose grace ran out, an operator) ends canceled.
      if (e.task.status.state === "TASK_STATE_CANCELED") {
        // canceled already: stays so
      } else if (code === "E_ABORTED") this.setStatus(e, "TASK_STATE_CANCELED", message);
      else this.setStatus(e, "TASK_STATE_FAILED", `run failed (${code}): ${message}`);
    }
    if (e.durable) this.routing.logger?.info("a2a.task-ended", { task: id, principal: owner, state: e.task.status.state });
  }

  /** Whether `taskId` is answered from memory alone: held here for `who`, or nothing is kept in the store. */
  holds(who: Principal, taskId: string): boolean {
    return (
      !this.durable ||
      this.tasks.has(`${who.id}\n${taskId}`) ||
      (who.role === "operator" && [...this.tasks.values()].some((e) => e.task.id === taskId))
    );
  }

  /**
   * Find `taskId` again when this process does not hold it but the store keeps it (its run waited saved, and
   * the process that held it ended): from then on it is held here, following its run. `who`'s own task only
   * (an operator: anyone's); anything else stays "not found".
   */
  async load(who: Principal, taskId: string): Promise<void> {
    if (this.holds(who, taskId)) return;
    const key = `${who.id}\n${taskId}`;
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.rebuild(who, taskId).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    await loading;
  }

  private async rebuild(who: Principal, taskId: string): Promise<void> {
    const durable = this.durable!;
    const found = await durable.find(taskId, who).catch((err: unknown) => {
      this.routing.logger?.warn("a2a.task-record-failed", { task: taskId, error: err instanceof Error ? err.message : String(err) });
      return undefined;
    });
    const key = found && `${found.owner}\n${taskId}`;
    if (!found || !key || this.tasks.has(key)) return;
    const e: Entry = {
      owner: found.owner,
      task: found.task,
      updatedAt: Date.now(),
      controller: new AbortController(),
      listeners: new Set(),
    };
    this.tasks.set(key, e);
    this.routing.logger?.info("a2a.task-rebuilt", { task: taskId, principal: found.owner, state: found.task.status.state });
    const now = await durable.rebuilt(e, found);
    if (now === "ended") return;
    // Resumed to its end while no process held the task: its answer is in the run history already.
    if (now !== "follow")
      return void this.ended(found.owner, e, "result" in now ? now.result : undefined, "error" in now ? now.error : undefined, false);
    this.registry.start(taskId, found.instruction, found.owner, { via: "a2a", conversationId: found.task.contextId });
    const onEvent = (ev: RunEvent) => this.progress(found.owner, e, ev);
    void durable.untilDone(e, found.runId, found.instruction, e.controller.signal, onEvent, this.asksOf(e)).then(
      (result) => this.ended(found.owner, e, result),
      (err: unknown) => this.ended(found.owner, e, undefined, err),
    );
  }

  /**
   * The claim was not this replica's: the task ends with another replica's answer, or failed (the store is
   * down; a done run whose record is gone cannot be answered again; only a cancel ends an unbounded wait).
   */
  private settledElsewhere(principal: A2aCaller, e: Entry, claim: Exclude<ServedClaim, { status: "run" }>): void {
    const { id } = e.task;
    if (claim.status === "unavailable") {
      this.registry.fail(id, { code: "E_UPSTREAM", message: claim.message }, undefined, principal.id);
      this.setStatus(
        e,
        "TASK_STATE_FAILED",
        `not started: the store that keeps served runs once is unavailable (${claim.message}); send again`,
      );
      return;
    }
    if (claim.status === "running" || !claim.answer) {
      const message =
        claim.status === "running"
          ? "canceled while another replica ran it"
          : "already run by another replica; its answer is no longer in the store";
      this.registry.fail(id, { code: "E_ABORTED", message }, undefined, principal.id);
      if (e.task.status.state !== "TASK_STATE_CANCELED") this.setStatus(e, "TASK_STATE_FAILED", message);
      return;
    }
    const answer = answeredElsewhere(claim.answer);
    recordSucceeded(this.registry, id, answer, principal.id);
    if (e.task.status.state !== "TASK_STATE_CANCELED") this.complete(e, answer);
  }

  /** The task a follow-up names: the sender's own, or, for an operator, any principal's. */
  private forAnswer(principal: A2aCaller, id: string): Entry {
    if (principal.role !== "operator" || this.tasks.has(`${principal.id}\n${id}`)) return this.get(principal.id, id);
    const found = [...this.tasks.values()].find((e) => e.task.id === id);
    if (!found) throw new A2aError("TaskNotFound", `task ${id} not found`);
    return found;
  }

  /** The status an approval's wait moves the task to; back to working only from input-required (an ended task stays so). */
  private moveTo(e: Entry): SetTaskStatus {
    return (state, parts) => {
      if (state === "TASK_STATE_WORKING" && e.task.status.state !== "TASK_STATE_INPUT_REQUIRED") return;
      if (!TERMINAL_STATES.has(e.task.status.state)) this.setStatus(e, state, parts);
    };
  }

  private progress(owner: string, e: Entry, ev: RunEvent): void {
    this.registry.observe(e.task.id, ev, owner);
    if (ev.type === "model-end") this.registry.progress(e.task.id, { turns: ev.turn, usage: ev.usage }, owner);
    const text =
      ev.type === "model-end"
        ? `turn ${ev.turn}: model answered${ev.toolCalls ? ` with ${ev.toolCalls} tool call(s)` : ""}`
        : ev.type === "tool-call-end"
          ? `tool ${ev.qualifiedName ?? ev.name} ${ev.isError ? "failed" : "returned"}`
          : undefined;
    if (text && e.task.status.state === "TASK_STATE_WORKING") this.setStatus(e, "TASK_STATE_WORKING", text);
  }

  private complete(e: Entry, result: Pick<RunResult, "turns" | "toolCalls" | "text" | "output"> & { stopReason: string }): void {
    const parts = result.output !== undefined ? [{ data: result.output, mediaType: "application/json" }] : [{ text: result.text ?? "" }];
    const artifact: Artifact = {
      artifactId: "result",
      name: "result",
      parts,
      metadata: { stopReason: result.stopReason, turns: result.turns, toolCalls: result.toolCalls },
    };
    e.task.artifacts = [artifact];
    this.emit(e, { artifactUpdate: { taskId: e.task.id, contextId: e.task.contextId, artifact, lastChunk: true } });
    this.setStatus(e, "TASK_STATE_COMPLETED");
  }

  private readonly setStatus = (e: Entry, state: TaskState, text?: string | Part[]): void => {
    const message: Message | undefined = text
      ? {
          messageId: crypto.randomUUID(),
          role: "ROLE_AGENT",
          parts: typeof text === "string" ? [{ text }] : text,
          taskId: e.task.id,
          contextId: e.task.contextId,
        }
      : undefined;
    e.task.status = { state, message, timestamp: now() };
    // A task whose run waited saved keeps its end in its record too (GetTask after a restart answers it).
    if (e.durable && TERMINAL_STATES.has(state)) void this.durable?.save(e);
    this.emit(e, { statusUpdate: { taskId: e.task.id, contextId: e.task.contextId, status: e.task.status } });
  };

  private emit(e: Entry, event: StreamResponse): void {
    e.updatedAt = Date.now();
    for (const l of [...e.listeners]) l(event);
    this.onEvent?.(e.owner, e.task.id, event);
  }

  /** Keep at most the bound of `owner`'s finished tasks, the oldest going first. */
  private trim(owner: string): void {
    const finished = [...this.tasks.entries()].filter(([, e]) => e.owner === owner && TERMINAL_STATES.has(e.task.status.state));
    finished.sort(([, a], [, b]) => a.updatedAt - b.updatedAt);
    for (const [key] of finished.slice(0, Math.max(0, finished.length - this.maxPerOwner))) this.tasks.delete(key);
  }
}
