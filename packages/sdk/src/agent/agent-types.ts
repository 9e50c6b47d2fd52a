/**
 * What an agent is to its caller: the {@link Agent} interface, a run's options, and what its status
 * reports. Kept apart from the assembly (create-agent.ts) and the options (types/agent-options.ts); a run's
 * options and the status live with the runs (run/run-options.ts), whose rooms need them.
 */
export type { AgentLifecycleStatus, AgentRunOptions, AgentStreamOptions, DrainOptions } from "./run/run-options.ts";
import type { AgentConversations } from "./conversations/agent-conversations.ts";
import type { RunEvent } from "../loop/events.ts";
import type { RunResult } from "../loop/run-loop.ts";
import type { ToolDescriptor } from "../loop/tools.ts";
import type { ManagedMcpClient } from "../mcp/client/managed/managed-client.ts";
import type { Supervisor } from "../supervisor/supervisor.ts";
import type { AgentTriggers, TriggersStarted } from "../triggers/runner/agent-triggers.ts";
import type { AgentStream } from "./run/agent-stream.ts";
import type { ApprovalDecisions, ResumeOptions } from "./run/resume-run.ts";
import type { AgentLifecycleStatus, AgentRunOptions, AgentStreamOptions, DrainOptions } from "./run/run-options.ts";
import type { ReloadPlan, ReloadReport } from "./live/reload.ts";
import type { ServeOptions, ServedEndpoint } from "./serving/served-agent.ts";

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
   * Continue a run that ended `status: "waiting"` (here or in another process on the same store) with a
   * decision for each of its `pending` questions, keyed by request id: approve, deny (the model reads why)
   * or always (that tool, for the rest of this run). The saved run is claimed once: resuming it again, an
   * unknown run id or a missing decision is one E_USAGE line. Resolves like `run()`: finished, or waiting again.
   *
   * Example:
   * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#resume}
   */
  resume(runId: string, decisions: ApprovalDecisions, options?: ResumeOptions): Promise<RunResult>;
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
  /** The owner's conversations: list, read, delete (docs/conversations.md). */
  readonly conversations: AgentConversations;
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
   * Serve the agent's MCP surface on stdio or Streamable HTTP(S); call it once per endpoint. Without options,
   * what the agent's `serve.endpoint` says (an agent from a configuration: its `serve` block), else stdio.
   *
   * Example:
   * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#serveFromConfig}
   */
  serve(options?: ServeOptions): Promise<ServedEndpoint>;
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
  /** Close every endpoint, trigger, subagent and MCP connection (children are stopped). Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
