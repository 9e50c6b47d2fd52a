/**
 * A run's options (`agent.run(input, options)`, `agent.stream()`), what the agent's status reports and a
 * drain's options: kept with the runs, below the rooms that build on them (live/, serving/) and the front
 * door's `Agent` interface (agent-types.ts re-exports them).
 */
import type { ConversationRef } from "../conversations/conversation.ts";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { AskApproval } from "../tools/run-approvals.ts";
import type { RunLimits } from "../../loop/budget.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { TraceCarrier } from "../../loop/trace-context.ts";
import type { AuthorizationAsk } from "../../mcp/client/authorization-ask.ts";
import type { OperatorAsk } from "../../mcp/client/elicitation-policies.ts";
import type { TriggerStatus } from "../../triggers/runner/trigger-status.ts";
import type { SamplingReport } from "../sampling/sampling-ledger.ts";
import type { Run, RunOrigin } from "./run.ts";

/** Options of one run. */
export interface AgentRunOptions {
  signal?: AbortSignal;
  /** Stable idempotency id sent in `_meta` of every tool call (default: a fresh id). */
  runId?: string;
  /** JSON Schema the final answer must satisfy; the parsed value is `output`. */
  outputSchema?: Record<string, unknown>;
  maxOutputRetries?: number;
  /** Stream model output (`text-delta` and `reasoning-delta` events); `stream()` does unless this is false. */
  stream?: boolean;
  /** Events of this run only. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Awaited before each model request, each part of a streamed response and each batch of tool calls: a
   * consumer of the events that is behind returns a promise and the run waits for it (see `stream()`).
   */
  backpressure?: () => Promise<void> | void;
  /** Overrides the agent's limits for this run. */
  limits?: RunLimits;
  /** The caller's W3C trace context (e.g. from an `agent.run` request's `_meta`): the run's span is its child. */
  traceContext?: TraceCarrier;
  /** The trigger event that started this run, and when it happened (telemetry: the trigger span and lag). */
  triggerEvent?: { id: string; kind: string; firedAt: Date };
  /** What started the run; its telemetry records carry it as `trigger` (e.g. `"once"`). */
  trigger?: string;
  /** Who answers its MCP servers' elicitations under the `operator` policy (the A2A task's operator). */
  askOperator?: OperatorAsk;
  /** Who completes a remote MCP server's authorization the run lacks (the A2A task's client); without it the call fails. */
  askAuthorization?: AuthorizationAsk;
  /**
   * Who decides this run's tool calls that need a person's approval (docs/approvals.md), before the
   * agent's `approvals.onAsk`: `agentd run`'s terminal question, say.
   */
  askApproval?: AskApproval;
  /**
   * A served MCP caller asked about its own run's questions beside the approval desk (`approvals.askCaller`,
   * the caller declared elicitation): told each question the run posts to the desk as it suspends, saved; the
   * caller's principal may decide it. The run suspends all the same (its `askApproval` then answers only a
   * run that cannot suspend: a model without native tool calls).
   */
  askCaller?: (request: ApprovalRequest) => void;
  /**
   * Save this run's conversation after each tool turn and resume a re-run of the same run id from it (a served
   * run taken over from a dead replica). Only with `durability.checkpoint.resumeConversations`; triggered runs always do.
   */
  resumeConversation?: boolean;
  /** Where the run came from (default: a trigger's when `triggerEvent` is set, else `direct`); served surfaces say theirs. */
  origin?: RunOrigin;
  /** The principal the run is for (a served run's caller); it owns the conversation the run continues. */
  principal?: string;
  /**
   * Continue a conversation (docs/conversations.md): an id or name (created when the owner has none), a
   * `Conversation` read before, `{ id }` (must exist), `{ new: true }` or `{ newest: true }`. Its earlier
   * messages go to the model before `input`; this run's turns are saved to it; `result.conversationId` names it.
   */
  conversation?: ConversationRef;
  /** Called once the run is made, before it connects: the run itself, read-only (its id, state, signal). */
  onStart?: (run: Run) => void;
}

/** Options of {@link Agent.stream}: a run's options, and how many events may wait for the consumer. */
export interface AgentStreamOptions extends Omit<AgentRunOptions, "backpressure"> {
  /** The run pauses while this many events wait for the consumer (default 64). */
  highWaterMark?: number;
}

/** What {@link Agent.status} reports. */
export interface AgentLifecycleStatus {
  /** `running` until `drain()` begins, then `draining`; `drained` once a drain that keeps serving is done; `closed`. */
  state: "running" | "draining" | "drained" | "closed";
  /** Whether a model is configured. */
  model: boolean;
  /** Runs in flight: direct `run()` calls, triggered runs and runs started over MCP alike. */
  inFlight: number;
  /** Each configured trigger's state (empty without triggers). */
  triggers: TriggerStatus[];
  /** Endpoints being served. */
  serving: number;
  /** Sampling requests answered per server since the agent started (absent when sampling is off). */
  sampling?: Record<string, SamplingReport>;
}

/** Options of {@link Agent.drain}. */
export interface DrainOptions {
  /**
   * Close the agent once drained (default true). false keeps it up and serving, taking no new work: its
   * status is `draining`, then `drained` (the operator's drain); what the grace did not cover is cancelled.
   */
  close?: boolean;
}
