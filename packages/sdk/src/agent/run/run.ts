/**
 * A run: the one object made when a run starts — for `agent.run()` and `stream()`, a served `agent.run`, an
 * A2A task, a triggered run, an MCP task's re-run and a subagent's run alike — and everything that belongs
 * to it as its fields: who asked (principal, origin), its budgets and deadline, its abort signal, its saved
 * conversation, who answers its questions (an operator's elicitation, a server's authorization), its share of
 * sampling, its trace and its trigger. What belongs to a run ends with it: nothing is kept in a table keyed
 * by its id for someone to clear by hand; the agent's one table of runs in flight (runs.ts) finds it by id.
 *
 * Its state moves `starting → running ⇄ waiting → finished` (with an outcome) through one method,
 * {@link ActiveRun.transition}, which refuses an illegal move (E_USAGE), timestamps the legal ones and writes one log
 * record each. A run that stops to wait for a person's decision is {@link ActiveRun.suspend suspended}: saved
 * (agent/run/waiting-runs.ts), it leaves flight `waiting` and holds nothing; resumed, the same run id is a new ActiveRun
 * going `starting → running` again, continuing from what was saved ({@link ActiveRun.resumes}).
 */
import type { WaitingRun } from "./waiting-runs.ts";
import type { Logger } from "../../log.ts";
import type { RunLimits } from "../../loop/budget.ts";
import type { TraceCarrier } from "../../loop/trace-context.ts";
import type { AuthorizationAsk } from "../../mcp/client/authorization-ask.ts";
import type { OperatorAsk } from "../../mcp/client/elicitation-policies.ts";
import type { RunTelemetry } from "../../telemetry/types.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { RunConversation } from "../checkpoint/run-conversations.ts";
import { SamplingShare, type SamplingReport } from "../sampling/sampling-ledger.ts";

/** Where a run came from. */
export type RunOrigin =
  /** `agent.run()` / `agent.stream()` in this process (the CLI's `agentd run` among them). */
  | { kind: "direct" }
  /** A served MCP `agent.run` (or an MCP task's re-run of one). */
  | { kind: "mcp" }
  /** An A2A task. */
  | { kind: "a2a" }
  /** A trigger's event: the trigger's id, the event's kind and when it fired. */
  | { kind: "trigger"; trigger: string; event?: { id: string; kind: string; firedAt: Date } }
  /** A run of a subagent child, started by its parent's `subagent.spawn`. */
  | { kind: "subagent" };

/** A run's state: `waiting` while it waits for a person or a peer (an operator's answer, an authorization). */
export type RunState = "starting" | "running" | "waiting" | "finished";

/** How a finished run ended. */
export type RunOutcome = { status: "ok" } | { status: "failed"; code: string } | { status: "aborted"; reason: string };

/** One recorded change of a run's state. */
export interface RunTransition {
  from: RunState;
  to: RunState;
  /** Epoch ms. */
  at: number;
  /** With `to: "finished"`. */
  outcome?: RunOutcome;
}

/** The moves a run may make; anything else is refused (a bug, never a user's mistake). */
const LEGAL: Record<RunState, readonly RunState[]> = {
  starting: ["running", "finished"],
  running: ["waiting", "finished"],
  waiting: ["running", "finished"],
  finished: [],
};

/** A run as its observers see it (read-only): exported from `@agentd/sdk/agent` as `Run`. */
export interface Run {
  /** The run id: the caller's when it gave one, else minted (loop/run-id.ts). */
  readonly id: string;
  readonly origin: RunOrigin;
  /** The principal it runs for (served runs: the caller; direct and triggered runs: none). */
  readonly principal: string | undefined;
  /** Its trigger's id (telemetry records of the run carry it as `trigger`). */
  readonly trigger: string | undefined;
  /** Its own limits over the agent's (a run's budgets win where set). */
  readonly limits: RunLimits | undefined;
  /** When it started, epoch ms. */
  readonly startedAt: number;
  /** Aborted when the run is cancelled (a caller, a shutdown, `agent.cancel(id)`). */
  readonly signal: AbortSignal;
  readonly state: RunState;
  /** Set once finished. */
  readonly outcome: RunOutcome | undefined;
  /** Every change of state so far, oldest first. */
  readonly transitions: readonly RunTransition[];
  /** The caller's W3C trace context: the run's span is its child. */
  readonly traceContext: TraceCarrier | undefined;
}

/** What a run is made of when it starts. */
export interface RunInit {
  id: string;
  origin: RunOrigin;
  principal?: string;
  /** Its trigger tag when not a trigger's own run (e.g. `"once"`); a triggered run's is its trigger's id. */
  trigger?: string;
  limits?: RunLimits;
  traceContext?: TraceCarrier;
  /** The caller's signal: aborting it aborts the run. */
  signal?: AbortSignal;
  /** Who answers its MCP servers' elicitations under the `operator` policy (an A2A task's operator). */
  askOperator?: OperatorAsk;
  /** Who completes a server's authorization it lacks (an A2A task's client). */
  askAuthorization?: AuthorizationAsk;
  logger: Logger;
  now?: () => number;
}

/** A run in flight (see the module header); the agent's parts hold it, its observers see {@link Run}. */
export class ActiveRun implements Run {
  readonly id: string;
  readonly origin: RunOrigin;
  readonly principal: string | undefined;
  readonly trigger: string | undefined;
  readonly limits: RunLimits | undefined;
  readonly traceContext: TraceCarrier | undefined;
  readonly startedAt: number;
  readonly controller = new AbortController();
  /** Who answers its questions; each call of one holds the run `waiting` (see {@link waitFor}). */
  readonly askOperator: OperatorAsk | undefined;
  readonly askAuthorization: AuthorizationAsk | undefined;
  /** Sampling its tool calls caused (sampling-ledger.ts). */
  readonly sampling = new SamplingShare();
  /** Its saved conversation, when it is kept (the checkpoint's conversation tier). */
  conversation: RunConversation | undefined;
  /** Its telemetry, once the backend is loaded. */
  recorder: RunTelemetry | undefined;
  /** A resumed run: its claim on the saved run it continues (resume-lease.ts), through which it is saved waiting again. */
  resumes: { saveWaiting(saved: WaitingRun): Promise<void> } | undefined;
  private current: RunState = "starting";
  private ended: RunOutcome | undefined;
  private readonly history: RunTransition[] = [];
  private waits = 0;
  private readonly detach: () => void;
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(init: RunInit) {
    this.id = init.id;
    this.origin = init.origin;
    this.principal = init.principal;
    this.trigger = init.trigger ?? (init.origin.kind === "trigger" ? init.origin.trigger : undefined);
    this.limits = init.limits;
    this.traceContext = init.traceContext;
    this.logger = init.logger;
    this.now = init.now ?? Date.now;
    this.startedAt = this.now();
    const caller = init.signal;
    const onAbort = () => this.controller.abort(caller?.reason);
    if (caller?.aborted) onAbort();
    else caller?.addEventListener("abort", onAbort, { once: true });
    this.detach = () => caller?.removeEventListener("abort", onAbort);
    const wait = <A extends unknown[], T>(ask: ((...a: A) => Promise<T>) | undefined) =>
      ask && ((...a: A) => this.waitFor(() => ask(...a)));
    this.askOperator = wait(init.askOperator);
    this.askAuthorization = wait(init.askAuthorization);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get state(): RunState {
    return this.current;
  }

  get outcome(): RunOutcome | undefined {
    return this.ended;
  }

  get transitions(): readonly RunTransition[] {
    return this.history;
  }

  /** The deadline of its limits from its start (epoch ms), if it has one of its own. */
  get deadline(): number | undefined {
    return this.limits?.deadlineMs !== undefined ? this.startedAt + this.limits.deadlineMs : undefined;
  }

  /**
   * Move to `to` — the one place a run's state changes. Refuses a move the state machine does not allow
   * (E_USAGE: a bug, never a user's mistake); records the move with its time, and writes one `run.state` log record.
   */
  transition(to: RunState, outcome?: RunOutcome): void {
    const from = this.current;
    if (!LEGAL[from].includes(to)) throw new AgentdError("E_USAGE", `run ${this.id}: no move from ${from} to ${to}`);
    if ((to === "finished") !== (outcome !== undefined))
      throw new AgentdError("E_USAGE", `run ${this.id}: an outcome goes with finishing, and only with it`);
    const t: RunTransition = { from, to, at: this.now(), outcome };
    this.current = to;
    this.history.push(t);
    if (outcome) this.ended = outcome;
    this.logger.debug("run.state", { runId: this.id, from, to, outcome: outcome?.status });
  }

  /** Hold the run `waiting` while `wait` is pending (several at once: until the last ends). */
  async waitFor<T>(wait: () => Promise<T>): Promise<T> {
    if (this.waits++ === 0 && this.current === "running") this.transition("waiting");
    try {
      return await wait();
    } finally {
      if (--this.waits === 0 && this.current === "waiting") this.transition("running");
    }
  }

  /** Whether it stopped waiting for a decision, saved (it leaves flight without finishing). */
  get suspended(): boolean {
    return this.current === "waiting" && this.waits === 0;
  }

  /**
   * It stops to wait for a person's decision, saved: `waiting`, its caller's signal let go. It leaves flight
   * without finishing; resuming it makes a new run under the same id.
   */
  suspend(): void {
    if (this.current === "running") this.transition("waiting");
    this.detach();
  }

  /** Abort it (an operator's cancel, a shutdown). */
  cancel(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** It is over: finished with `outcome` (when not already), its caller's signal let go. Returns its sampling. */
  finish(outcome: RunOutcome): SamplingReport | undefined {
    if (this.current !== "finished") this.transition("finished", outcome);
    this.detach();
    return this.sampling.report();
  }
}

/** The outcome of a run that threw `error`. */
export function outcomeOf(error: unknown): RunOutcome {
  if (AgentdError.isInstance(error) && error.code === "E_ABORTED") return { status: "aborted", reason: error.message };
  return { status: "failed", code: AgentdError.isInstance(error) ? error.code : "E_RUN_FAILED" };
}
