/**
 * What an agent is to its caller: the {@link Agent} interface, a run's options, and what its status
 * reports. Kept apart from the assembly (create-agent.ts) and the options (agent-options.ts).
 */
import type { RunEvent } from "../loop/events.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { RunResult } from "../loop/run-loop.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";
import type { ToolDescriptor } from "../loop/tools.ts";
import type { OperatorAsk } from "../mcp/client/elicitation-policies.ts";
import type { AuthorizationAsk } from "../mcp/client/authorization-ask.ts";
import type { ManagedMcpClient } from "../mcp/client/managed/managed-client.ts";
import type { Supervisor } from "../supervisor/supervisor.ts";
import type { AgentTriggers, TriggersStarted } from "../triggers/runner/agent-triggers.ts";
import type { TriggerStatus } from "../triggers/runner/trigger-status.ts";
import type { AgentStream } from "./run/agent-stream.ts";
import type { AgentConversations } from "./conversations/agent-conversations.ts";
import type { ConversationRef } from "./conversations/conversation.ts";
import type { ReloadPlan, ReloadReport } from "./live/reload.ts";
import type { SamplingReport } from "./sampling/sampling-ledger.ts";
import type { ServeOptions, Serving } from "./serving/serve-agent.ts";

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
   * Save this run's conversation after each tool turn and resume a re-run of the same run id from it (a served
   * run taken over from a dead replica). Only with `durability.checkpoint.resumeConversations`; triggered runs always do.
   */
  resumeConversation?: boolean;
  /**
   * Continue a conversation (docs/conversations.md): an id or name (created when the owner has none), a
   * `Conversation` read before, `{ id }` (must exist), `{ new: true }` or `{ newest: true }`. Its earlier
   * messages go to the model before `input`; this run's turns are saved to it; `result.conversationId` names it.
   */
  conversation?: ConversationRef;
  /** Who owns the conversation (default: the agent's `conversations.principal`, else `local`). */
  principal?: string;
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

/** A configured agent. */
export interface Agent {
  /** Connect every MCP server (run() does this lazily). Rejects with E_UPSTREAM when a required one fails. */
  connect(): Promise<void>;
  /**
   * Run an instruction to a final answer. Rejects with E_BUDGET_*, E_UPSTREAM, E_ABORTED, or E_RUN_FAILED
   * (`data.reason`: `content-filter`, `empty-answer`, `output-invalid`, `gave-up`).
   */
  run(input: string, options?: AgentRunOptions): Promise<RunResult>;
  /**
   * Run an instruction and watch it: an async iterable of {@link AgentStreamEvent}s — `run-start`,
   * `model-start`, `reasoning-delta`, `text-delta`, `model-end`, `tool-call-start`, `tool-call-end`,
   * `budget-warning` — ending with `finish` (the result, or the failure: it never throws). The model is
   * asked for a streamed response unless `stream: false`. A slow consumer holds the run (it pauses while
   * `highWaterMark` events wait, default 64; see agent-stream.ts); `options.signal` or leaving the loop cancels it.
   *
   * Example:
   * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#stream}
   */
  stream(input: string, options?: AgentStreamOptions): AgentStream;
  /** The tools the model would be offered (before scope filtering). */
  listTools(): Promise<ToolDescriptor[]>;
  /**
   * The connected servers by name. Each client reconnects by itself when its connection drops (and emits
   * `reconnected` once every subscription was re-sent); calls made meanwhile wait for it.
   */
  readonly clients: ReadonlyMap<string, ManagedMcpClient>;
  /** Observe every run's events; returns the unsubscribe function. */
  on(listener: (event: RunEvent) => void): () => void;
  /** The configured triggers (undefined without any): their `run-end` events, `ended`, `status()`. */
  readonly triggers: AgentTriggers | undefined;
  /** The subagent supervisor, when the agent has subagents. */
  readonly supervisor: Supervisor | undefined;
  /**
   * Arm the configured triggers (connects the MCP servers, subscribes, reads, arms clocks, catches up).
   * Resolves with how many are active. Rejects with E_USAGE when no trigger is configured.
   */
  start(): Promise<TriggersStarted>;
  /**
   * Serve the self-MCP surface on stdio or Streamable HTTP(S); call it once per endpoint. Without options,
   * what the agent's `serve.endpoint` says (an agent from a configuration: its `serve` block), else stdio.
   *
   * Example:
   * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#serveFromConfig}
   */
  serve(options?: ServeOptions): Promise<Serving>;
  /**
   * Shut down without losing work: stop taking runs and triggers, let runs in flight finish (and served
   * ones be answered) for up to `graceMs`, cancel what is left, then close everything (like `close()`).
   */
  drain(graceMs: number, reason?: string, options?: DrainOptions): Promise<void>;
  /** Abort the run in flight with this run id (any: direct, triggered, served); false when none is. */
  cancel(runId: string, reason?: string): boolean;
  /** The ids of the runs in flight. */
  runIds(): string[];
  /** Pause the named triggers (all without `ids`): what they would fire is not run. Resolves with those paused. */
  pauseTriggers(ids?: readonly string[]): Promise<string[]>;
  /** Resume paused triggers (all without `ids`), each reconciling like a restart. Resolves with those resumed. */
  resumeTriggers(ids?: readonly string[]): Promise<string[]>;
  /**
   * Read the configuration again and apply what can change live (instructions, limits, prices, scope,
   * triggers); rejects (E_CONFIG_INVALID) on an invalid one, keeping the running settings.
   */
  reload(): Promise<ReloadReport>;
  /** Listen to successful reloads (with the validated configuration, when it came from one). */
  onReload(listener: (report: ReloadReport, plan: ReloadPlan) => void): () => void;
  /** Where the agent stands. */
  status(): AgentLifecycleStatus;
  /** The owner's conversations: list, read, delete (docs/conversations.md). */
  readonly conversations: AgentConversations;
  /** Close every endpoint, trigger, subagent and MCP connection (children are stopped). Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link Agent.drain}. */
export interface DrainOptions {
  /**
   * Close the agent once drained (default true). false keeps it up and serving, taking no new work: its
   * status is `draining`, then `drained` (the operator's drain); what the grace did not cover is cancelled.
   */
  close?: boolean;
}
