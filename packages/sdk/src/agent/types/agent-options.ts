/**
 * What `createAgent` takes: the model, the MCP servers and tools it offers, and the groups its
 * configuration has. Kept apart from the agent's assembly so the options read as one reference page.
 */
import type { ConversationOptions } from "../conversations/conversation-run.ts";
import type { ApprovalDecision, ApprovalRequest, ApprovalRule } from "../../loop/approvals/approval-types.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { A2aAgentConfig } from "../../a2a/client/tool-set.ts";
import type { A2aServeOptions } from "../../a2a/server/index.ts";
import type { McpServerConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { ModelPrices, RunLimits } from "../../loop/budget.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { RunScope } from "../../loop/scope.ts";
import type { ToolSet } from "../../loop/tools.ts";
import type { CapabilityConfig } from "../../mcp/capabilities.ts";
import type { ReconnectPolicy } from "../../mcp/client/managed/backoff.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { RunHistoryLimits } from "../../serve/run-registry.ts";
import type { ServedPrompt } from "../../serve/served-prompts.ts";
import type { ServedRuns } from "../../serve/served-runs.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import type { Telemetry } from "../../telemetry/types.ts";
import type { LocalTools } from "../../tool/local-tool-set.ts";
import type { TokenStore } from "../../transport/http-client/index.ts";
import type { AgentCheckpoint } from "../checkpoint/agent-checkpoint.ts";
import type { DocumentStore } from "../conversations/document-conversations.ts";
import type { ReloadPlan } from "./live-settings.ts";
import type { SamplingPolicy } from "../sampling/sampling-handler.ts";
import type { AgentTriggerOptions } from "./live-settings.ts";
import type { ServeOptions } from "./serve-options.ts";

/**
 * Options of {@link createAgent}, grouped the way `agentd.json` groups them (`limits`, `capabilities`,
 * `triggers`, `serve`, `durability`); `createAgentFromConfig` maps a configuration onto them group by group.
 */
export interface AgentOptions {
  /**
   * The model, from `@agentd/adapters` (`createModel`) or any `LanguageModel`. Without one the agent can
   * still serve (its subagent tools, its status) but every run fails with `E_CONFIG_INVALID`.
   */
  model?: LanguageModel;
  /** MCP servers in the ecosystem's usual shape: `{ command, args, env, cwd }` or `{ url, headers }`. */
  mcpServers?: Record<string, McpServerConfig>;
  /**
   * Remote A2A agents, each offered as the tool `a2a:NAME` (docs/a2a.md, "agentd as an A2A client"): the
   * model sends it a message and gets the task's answer, or its question when it needs input.
   */
  a2aAgents?: Record<string, A2aAgentConfig>;
  /** System instructions (trusted). */
  instructions?: string;
  /**
   * Tools defined in code, offered besides the MCP servers' (docs/tools.md): made by `tool()`, as an array
   * of named tools or a record whose keys name them. Those made with `serve: true` are also offered by
   * `serve()`. A `ToolSet` instead replaces the subagent tools as the extra tool set (not with `subagents`).
   */
  tools?: LocalTools | ToolSet;
  /**
   * Subagents: a {@link Supervisor} whose `subagent_*` tools the model is offered (and which `serve()`
   * exposes to MCP clients); `close()` stops its whole tree first.
   */
  subagents?: Supervisor;
  /** Prompts served endpoints offer (prompts/list, prompts/get, completion/complete, `agent.run` with `prompt`); default none. */
  prompts?: Record<string, ServedPrompt>;
  /** Each run's budgets, and every MCP server's request timeouts (the config's `limits`). */
  limits?: AgentLimits;
  /** Prices per million tokens; needed for `limits.maxCostUsd` (the config's `model.prices`). */
  prices?: ModelPrices;
  /** Allow-list of `server/tool` globs. */
  scope?: RunScope;
  /**
   * Which tool calls wait for a person's decision, and who decides in code (docs/approvals.md). Absent:
   * every call is made, as before; a tool made with `needsApproval` is then denied (nobody to ask). Present
   * without `onAsk`, a run's call that needs a decision makes `agent.run()` end `status: "waiting"`, saved,
   * for `agent.resume(runId, decisions)` (a run with its own `askApproval` is asked there instead).
   */
  approvals?: AgentApprovals;
  /**
   * Where conversations are kept and how they are bounded (docs/conversations.md). Default: the local state
   * directory (`$XDG_STATE_HOME/agentd/conversations`), owner `local`, the documented bounds.
   */
  conversations?: ConversationOptions;
  /** The protocol switches (the config's `capabilities`); everything absent is off. */
  capabilities?: AgentCapabilities;
  /**
   * How a dropped MCP connection is re-established (stdio child exited, HTTP session expired): bounded
   * exponential backoff with full jitter. Default: first wait ≤ 250 ms, waits ≤ 30 s, never give up.
   */
  reconnect?: Partial<ReconnectPolicy>;
  /** Triggers `start()` arms: subscriptions, schedules, an interval (see `triggerSpecsFromConfig`). */
  triggers?: AgentTriggerOptions;
  /** What served endpoints say and keep (the config's `serve`); where to serve is `serve()`'s argument. */
  serve?: AgentServeOptions;
  /** Durable state across restarts and replicas (the config's `durability`; docs/durability.md). */
  durability?: AgentDurability;
  /** Where `reload()` reads the settings again (`createAgentFromConfig` with `reloadConfig` sets it). */
  reload?: () => Promise<ReloadPlan>;
  /** Telemetry sink (default: none). */
  logger?: Logger;
  /** Called with every event of every run. */
  onEvent?: (event: RunEvent) => void;
  /**
   * OpenTelemetry traces and metrics (docs/kubernetes.md, "Telemetry"): `"env"` configures them from the
   * standard `OTEL_*` variables when those name an OTLP endpoint (the SDK is imported only then, and the
   * agent flushes and stops it on close); or a backend the caller owns. Default: none.
   */
  telemetry?: "env" | Telemetry;
}

/** {@link AgentOptions.limits}: a run's budgets (overridable per run) and the MCP servers' request timeouts. */
export interface AgentLimits extends RunLimits {
  /**
   * Every MCP server's request timeout unless its entry sets its own (`timeout`): without a response or
   * progress (default 60 s; each progress notification restarts it).
   */
  mcpTimeoutMs?: number;
  /** Every MCP server's total bound of a request, progress or not, unless its entry sets its own `maxTotalTimeout` (default 1 h). */
  mcpMaxTotalTimeoutMs?: number;
}

/** {@link AgentOptions.capabilities}: the MCP client switches, and the agent's own (sampling, HTTP reactivity, notifications). */
export interface AgentCapabilities extends Omit<CapabilityConfig, "sampling" | "elicitation" | "serverNotifications"> {
  /**
   * Answer MCP servers' elicitations: a fixed `"decline"` or a handler (see `elicitationPolicy`), or
   * `"operator"` (docs/a2a.md): an MCP server's form elicitation during a run served over A2A with an
   * operator configured becomes `input-required` on its task, and the run waits (bounded by its deadline)
   * for an operator's answer; any other run's is declined, with a log line.
   */
  elicitation?: CapabilityConfig["elicitation"] | "operator";
  /**
   * Answer MCP servers' `sampling/createMessage` with this agent's model (docs/configuration.md,
   * "Sampling"): `all` for every server, `servers` per server (`false` switches one off). Needs `model`.
   */
  sampling?: { all?: SamplingPolicy; servers?: Record<string, SamplingPolicy | false> };
  /**
   * Reactivity over HTTP (default false): with true, server push on the GET stream, so subscriptions work on
   * HTTP servers. Off, HTTP servers are used request/response only and a subscription trigger on one is
   * reported unavailable (naming this switch) unless it has a `pollInterval`.
   */
  httpReactivity?: boolean;
  /** Served MCP endpoints declare logging and send progress and log notifications (default false). */
  serverNotifications?: boolean;
}

/** {@link AgentOptions.serve}: what served endpoints say and keep. */
export interface AgentServeOptions {
  /** The version the served agent's MCP server (and the A2A card) reports (default the SDK's). */
  version?: string;
  /** Principal ids with the operator role on served endpoints: they see every principal's runs (docs/serving.md). */
  operators?: string[];
  /** How many finished runs served endpoints keep readable, and their bytes (default 100 runs, 16 MiB). */
  runHistory?: RunHistoryLimits;
  /** With `capabilities.tasks` on: served tools' `execution.taskSupport` (default `agent.run`, `subagent.spawn`: optional). */
  taskSupport?: Record<string, "optional" | "required" | "forbidden">;
  /**
   * A2A v1.0 on every HTTP endpoint whose `serve()` call does not say otherwise (the config's `serve.a2a`,
   * see `a2aServeOptionsFromConfig`): what the card says (its version defaults to `version`) and where push
   * notifications may go. Absent: A2A is served only where a `serve()` call asks for it.
   */
  a2a?: A2aServeOptions;
  /**
   * What `serve()` without an argument serves (`createAgentFromConfig` sets it from the config's `serve`
   * block, as `agentd serve` reads it: see `serveOptionsFromConfig`). Default: stdio.
   */
  endpoint?: () => Promise<ServeOptions>;
}

/** {@link AgentOptions.durability}: stores the agent keeps state in; one with a `close()` is the agent's, closed with it. */
export interface AgentDurability {
  /** The supervisor checkpoint: restored when the triggers start, written on change. */
  checkpoint?: AgentCheckpoint;
  /** Served runs (`agent.run`, A2A `SendMessage`) run once across replicas through a store. */
  servedRuns?: ServedRuns & { close?(): Promise<void> };
  /**
   * Where the OAuth tokens of `mcpServers` entries with an `oauth` block live (default: the token file; see
   * `tokenStoreFromConfig`).
   */
  oauthTokens?: TokenStore & { close?(): Promise<void> };
  /**
   * Where runs that wait for a person's decision are saved, to be resumed by any process or replica on the
   * same store (docs/approvals.md, "Waiting durably"). Default: the local state directory
   * (`$XDG_STATE_HOME/agentd/runs`); `createAgentFromConfig` uses `durability.store` when one is configured.
   */
  waitingRuns?: DocumentStore & { close?(): Promise<void> };
  /**
   * The claim on a waiting run being resumed: held `leaseMs` unrenewed (default 30 s), renewed every `renewMs`
   * (default 10 s). When the resuming process dies, another may take the run over once the lease lapses.
   */
  resumeLease?: { leaseMs?: number; renewMs?: number };
}

/** {@link AgentOptions.approvals}: which calls wait for a decision, who decides in code, how long a question waits. */
export interface AgentApprovals {
  /** In order; the first that matches a call decides (`ask`, `allow`, `deny`). None: every call is made. */
  rules?: readonly ApprovalRule[];
  /**
   * Decides in code when the run has no channel of its own. Return `{ decision: "approve" | "deny" | "always" }`.
   * Without it (and without a run's `askApproval`), a run that needs a decision ends waiting, saved.
   */
  onAsk?: (request: ApprovalRequest, signal: AbortSignal) => ApprovalDecision | Promise<ApprovalDecision>;
  /** How long one question waits (default: as long as the run may). */
  timeoutMs?: number;
  /** The decision when `timeoutMs` passes (default deny). */
  onTimeout?: "deny" | "approve";
  /** Where a person could answer, told with a denial when nobody could be asked (the CLI names its terminal). */
  unansweredHint?: string;
  /**
   * Where the questions of served and triggered runs wait (MCP `agent.run`, A2A tasks, triggers): the agent's
   * one approval desk, listed and answered over `agent://approvals`, `agent.decide`, `agentd approvals`, A2A
   * and the console (`approvalDeskFromConfig` builds it on the configured store). Without one such runs'
   * calls that need a decision are denied.
   */
  desk?: ApprovalDesk & { start?(): Promise<void>; close?(): Promise<void> };
  /** Served MCP callers that declared elicitation are asked about their own runs' questions too (form elicitation). */
  askCaller?: boolean;
}
