/**
 * The approval desk: where the questions of every waiting run of an agent are kept and answered, whatever
 * channel the person uses — the console's Approvals page, `agent://approvals` and the `agent.decide` tool
 * (which `agentd approvals` speaks), an A2A task's `input-required`, a served caller's elicitation. The desk
 * is the one source of what waits: its records live in the agent's durable store (any replica of a fleet
 * lists the same questions and may take a decision), and a decision is recorded once, bound to the call's
 * argument digest, and never replayed against another call.
 *
 * These are the shapes every channel codes against; the desk itself is built by the agent (serving).
 */
import type { ApprovalChannel, ApprovalDecision, ApprovalRequest } from "./approval-types.ts";

/** Who looks at or answers a question: an operator sees and decides every run's; anyone else only their own runs'. */
export interface ApprovalViewer {
  /** The principal asking (a served caller's), absent for the agent's own code. */
  principal?: string;
  /** Holds the operator role (`serve.permissions`): may see and decide every principal's questions. */
  operator: boolean;
}

/** A recorded decision: the decision as given, who gave it (always set) and when (ISO 8601). */
export type RecordedDecision = ApprovalDecision & { by: string; at: string };

/** One question of a waiting run, as the desk keeps it. */
export interface PendingApproval {
  request: ApprovalRequest;
  /** The run's principal (a served run's caller); the run's own principal may decide where the rule lets it. */
  principal?: string;
  /** Where the run came from: `mcp`, `a2a`, `trigger`, `direct`, `subagent`. */
  origin: string;
  /** When the question expires and `approvals.onTimeout` decides it (ISO 8601), if it does. */
  expiresAt?: string;
  state: "pending" | "decided";
  /** With `state: "decided"`. */
  decision?: RecordedDecision;
}

/** What the desk lists and answers. Errors: E_USAGE for a bad decision (no such id is E_USAGE too, naming the id), E_UNAUTHORIZED for a viewer that may not see or decide it. */
export interface ApprovalDesk {
  /** The questions the viewer may see, oldest first: pending ones, then those decided in the last hour. */
  list(viewer: ApprovalViewer): Promise<PendingApproval[]>;
  /** One question, when the viewer may see it. */
  get(id: string, viewer: ApprovalViewer): Promise<PendingApproval | undefined>;
  /**
   * Decide a pending question. A decision naming a `digest` must match the call's; a question already
   * decided is refused (E_USAGE, naming who decided it and how). Resolves with the question as recorded.
   */
  decide(id: string, decision: ApprovalDecision, viewer: ApprovalViewer): Promise<PendingApproval>;
  /**
   * Record a question without waiting for its answer (a run that is saved as waiting and resumed when the
   * decision arrives); {@link channelFor}'s `ask` is `post` and then a wait for the decision.
   */
  post(
    request: ApprovalRequest,
    run: {
      principal?: string;
      origin: string;
      timeoutMs?: number;
      /** The run's caller is asked too (`approvals.askCaller`): the run's own principal may decide it. */
      askCaller?: boolean;
    },
  ): Promise<PendingApproval>;
  /** Hear about questions added or decided (by any replica when the store is shared); returns the unsubscribe. */
  watch(listener: (id: string) => void): () => void;
  /**
   * The channel a served run asks through: its questions go to the desk and wait for a decision there.
   * `askCaller` (`approvals.askCaller`): the run's caller is asked too, and its answer decides as the run's
   * own principal (for this run's questions only); the first decision recorded wins.
   */
  channelFor(run: {
    runId: string;
    principal?: string;
    origin: string;
    askCaller?: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision | undefined>;
  }): ApprovalChannel;
}
