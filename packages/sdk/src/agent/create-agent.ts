/**
 * `createAgent`: the SDK's front door, the whole agent. It connects the configured MCP servers, offers
 * their tools to the model as `server/tool` (with the subagent tools when it supervises subagents), runs
 * the agentic loop under the configured budgets, wakes on its triggers (`start()`), serves its self-MCP
 * surface on stdio or HTTP (`serve()`), and shuts down without losing work (`drain()`, `close()`).
 *
 * ```ts
 * import { createAgent } from "@agentd/sdk";
 * import { createModel } from "@agentd/adapters";
 * const agent = createAgent({ model: createModel({ dialect: "openai", baseURL, model: "qwen3" }),
 *   mcpServers: { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"] } } });
 * const { text, usage } = await agent.run("Summarise /data/inbox.md");
 * await agent.close();
 * ```
 * A reactive, serving agent: `triggers: { specs: [...] }` in the options, then `await agent.start()`,
 * `await agent.serve({ http: { hostname: "127.0.0.1", port: 7777 } })`, and on SIGTERM `agent.drain(30_000)`.
 */
import type { McpServerConfig } from "../config/schema.ts";
import { createLogger, nullLogger, type Logger, type LogRecord } from "../log.ts";
import type { RunEvent } from "../loop/events.ts";
import type { ModelPrices, RunLimits } from "../loop/budget.ts";
import type { LanguageModel, ModelMessage } from "../model/language-model.ts";
import { createRunSignal } from "../loop/run-signal.ts";
import { runLoop, type RunResult } from "../loop/run-loop.ts";
import type { RunScope } from "../loop/scope.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";
import type { ToolDescriptor, ToolSet } from "../loop/tools.ts";
import type { CapabilityConfig } from "../mcp/capabilities.ts";
import type { ReconnectPolicy } from "../mcp/client/managed/backoff.ts";
import type { ManagedMcpClient } from "../mcp/client/managed/managed-client.ts";
import { loadTelemetry } from "../telemetry/load-telemetry.ts";
import type { Telemetry } from "../telemetry/types.ts";
import type { RunHistoryLimits } from "../serve/run-registry.ts";
import { canonicalOperators } from "../serve/principal.ts";
import { AgentdError } from "../wire/errors.ts";
import type { Supervisor } from "../supervisor/supervisor.ts";
import { SubagentToolSet } from "../supervisor/self-tools.ts";
import { checkpointHooks, type AgentCheckpoint } from "./checkpoint/agent-checkpoint.ts";
import type { ServedRuns } from "../serve/served-runs.ts";
import { SelfSubscriptions } from "../triggers/runner/self-subscriptions.ts";
import { SelfSubscribeToolSet } from "../triggers/runner/self-subscribe-tools.ts";
import { registerSubagentSurface } from "../supervisor/mcp-surface.ts";
import { LocalToolSet, namedLocalTools, type LocalTools } from "../tool/local-tool-set.ts";
import { registerLocalTools } from "../tool/serve-local-tools.ts";
import { MAX_TIMEOUT_MS, setLongTimeout } from "../_internal/timer.ts";
import type { OperatorAsk } from "../mcp/client/elicitation-policies.ts";
import { type AuthorizationAsk, withAuthorization } from "../mcp/client/authorization-ask.ts";
import type { OperatorControl } from "../a2a/server/operator.ts";
import { operatorRouting } from "./open-tool-calls.ts";
import { type AgentStream, streamRun } from "./agent-stream.ts";
import type { ReloadPlan, ReloadReport } from "./reload.ts";
import { LiveConfig } from "./live-config.ts";
import type { A2aAgentConfig } from "../a2a/client/tool-set.ts";
import { lazyA2aTools } from "../a2a/client/tools.ts";
import { createConnections } from "./connect-all.ts";
import { McpToolSet } from "./mcp-tool-set.ts";
import { samplingHandler, type SamplingPolicy } from "./sampling/sampling-handler.ts";
import { SamplingLedger, type SamplingReport } from "./sampling/sampling-ledger.ts";
import { SelfHost, type ServeOptions, type Serving } from "./serve-agent.ts";
import { agentConsoleFacts } from "./console/agent-facts.ts";
import type { ServedPrompt } from "../serve/served-prompts.ts";
import { createAgentTriggers, type AgentTriggerOptions } from "./serve-triggers.ts";
import type { AgentTriggers, TriggersStarted } from "../triggers/runner/agent-triggers.ts";
import { createRunTriggerTags } from "../triggers/runner/run-trigger-tags.ts";
import type { TriggerStatus } from "../triggers/runner/trigger-status.ts";
import type { TokenStore } from "../transport/http-client/index.ts";

/** Options of {@link createAgent}. */
export interface AgentOptions {
  /**
   * The model, from `@agentd/adapters` (`createModel`) or any `LanguageModel`. Without one the agent can
   * still serve (its subagent tools, its status) but every run fails with `E_CONFIG_INVALID`.
   */
  model?: LanguageModel;
  /** MCP servers in the ecosystem's usual shape: `{ command, args, env, cwd }` or `{ url, headers }`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** System instructions (trusted). */
  instructions?: string;
  limits?: RunLimits;
  /** Prices per million tokens; needed for `limits.maxCostUsd`. */
  prices?: ModelPrices;
  /** Allow-list of `server/tool` globs. */
  scope?: RunScope;
  /** Deferred-surface switches for the MCP clients (default: all off). */
  capabilities?: CapabilityConfig;
  /**
   * Answer MCP servers' `sampling/createMessage` with this agent's model (docs/configuration.md,
   * "Sampling"): `all` for every server, `servers` per server (`false` switches one off). Needs `model`.
   */
  sampling?: { all?: SamplingPolicy; servers?: Record<string, SamplingPolicy | false> };
  /**
   * How a dropped MCP connection is re-established (stdio child exited, HTTP session expired): bounded
   * exponential backoff with full jitter. Default: first wait ≤ 250 ms, waits ≤ 30 s, never give up.
   */
  reconnect?: Partial<ReconnectPolicy>;
  /**
   * Reactivity over HTTP (default false): with true, server push on the GET stream, so subscriptions work on
   * HTTP servers. Off, HTTP servers are used request/response only and a subscription trigger on one is
   * reported unavailable (naming this switch) unless it has a `pollInterval`.
   */
  httpReactivity?: boolean;
  /**
   * Every MCP server's request timeouts unless its entry sets its own (`timeout`, `maxTotalTimeout`):
   * `timeoutMs` without a response or progress (default 60 s; each progress notification restarts it),
   * `maxTotalTimeoutMs` in all, progress or not (default 1 h).
   */
  mcpTimeouts?: { timeoutMs?: number; maxTotalTimeoutMs?: number };
  /**
   * Where the OAuth tokens of `mcpServers` entries with an `oauth` block live (default: the token file). A
   * store with a `close()` is the agent's: closed with it (see `tokenStoreFromConfig`).
   */
  oauthTokenStore?: TokenStore & { close?(): Promise<void> };
  /**
   * Tools defined in code, offered besides the MCP servers' (docs/tools.md): made by `tool()`, as an array
   * of named tools or a record whose keys name them. Those made with `serve: true` are also offered by
   * `serve()`. A `ToolSet` instead replaces the subagent tools as the extra tool set (not with `subagents`).
   */
  tools?: LocalTools | ToolSet;
  /**
   * Remote A2A agents, each offered as the tool `a2a:NAME` (docs/a2a.md, "agentd as an A2A client"): the
   * model sends it a message and gets the task's answer, or its question when it needs input.
   */
  a2aAgents?: Record<string, A2aAgentConfig>;
  /**
   * Subagents: a {@link Supervisor} whose `subagent_*` tools the model is offered (and which `serve()`
   * exposes to MCP clients); `close()` stops its whole tree first.
   */
  subagents?: Supervisor;
  /** Triggers `start()` arms: subscriptions, schedules, an interval (see `triggerSpecsFromConfig`). */
  triggers?: AgentTriggerOptions;
  /**
   * Runs may subscribe the agent to resources themselves (tools `agent.subscribe`, `agent.unsubscribe`,
   * `agent.subscriptions`); needs triggers. Absent: the tools are not offered.
   */
  selfSubscribe?: { max?: number; servers?: string[]; pollIntervalMs?: number };
  /** The supervisor checkpoint (docs/durability.md): restored when the triggers start, written on change. */
  checkpoint?: AgentCheckpoint;
  /** Served runs (`agent.run`, A2A `SendMessage`) run once across replicas through a store (docs/durability.md). */
  servedRuns?: ServedRuns & { close?(): Promise<void> };
  /** Served MCP endpoints declare logging and send progress and log notifications (default false). */
  serverNotifications?: boolean;
  /** The version the self-MCP server reports (default the SDK's). */
  version?: string;
  /** Principal ids with the operator role on served endpoints: they see every principal's runs (docs/serving.md). */
  operators?: string[];
  /** How many finished runs served endpoints keep readable, and their bytes (default 100 runs, 16 MiB). */
  runHistory?: RunHistoryLimits;
  /** With `capabilities.tasks` on: served tools' `execution.taskSupport` (default `agent.run`, `subagent.spawn`: optional). */
  taskSupport?: Record<string, "optional" | "required" | "forbidden">;
  /** Prompts served endpoints offer (prompts/list, prompts/get, completion/complete, `agent.run` with `prompt`); default none. */
  prompts?: Record<string, ServedPrompt>;
  /**
   * The `operator` elicitation policy (docs/a2a.md): an MCP server's form elicitation during a run served
   * over A2A with an operator configured becomes `input-required` on its task, and the run waits (bounded
   * by its deadline) for an operator's answer; any other run's is declined, with a log line.
   */
  operatorElicitation?: boolean;
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
  // [served-resume] the conversation tier for runs other than triggered ones (a served run with the caller's run id).
  /**
   * Save this run's conversation after each tool turn and resume a re-run of the same run id from it (a served
   * run taken over from a dead replica). Only with `durability.checkpoint.resumeConversations`; triggered runs always do.
   */
  resumeConversation?: boolean;
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
  /** Serve the self-MCP surface on stdio or Streamable HTTP(S). Call it once per endpoint. */
  serve(options: ServeOptions): Promise<Serving>;
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

/** Options of {@link Agent.drain}. */
export interface DrainOptions {
  /**
   * Close the agent once drained (default true). false keeps it up and serving, taking no new work: its
   * status is `draining`, then `drained` (the operator's drain); what the grace did not cover is cancelled.
   */
  close?: boolean;
}

/** A hand-written ToolSet (`{ list, call }`), as opposed to tools made by `tool()`. */
const isToolSet = (tools: AgentOptions["tools"]): tools is ToolSet =>
  tools !== undefined &&
  !Array.isArray(tools) &&
  typeof (tools as ToolSet).list === "function" &&
  typeof (tools as ToolSet).call === "function";

/** A fresh run id. */
export const newRunId = (): string => `run-${crypto.randomUUID()}`;

/**
 * Create an agent. Nothing is connected until `connect()`, the first `run()`, `start()` or `serve()`.
 *
 * Example:
 * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#createAgent}
 */
export function createAgent(options: AgentOptions): Agent {
  const customToolSet = isToolSet(options.tools) ? options.tools : undefined;
  if (customToolSet && options.subagents)
    throw new AgentdError(
      "E_USAGE",
      "createAgent: pass either a ToolSet as tools or subagents (the subagent tools are the extra tool set); tools made by tool() go with both",
    );
  const localTools = options.tools && !customToolSet ? namedLocalTools(options.tools as LocalTools) : undefined;
  if (options.triggers?.specs.length && !options.model)
    throw new AgentdError("E_CONFIG_INVALID", "triggers are configured but no model is: set AGENT_INTELLIGENCE or model.intelligence");
  // Records of a triggered (or tagged) run carry `trigger`; the loop itself knows nothing of triggers.
  // With server notifications on, every record is also mirrored to served clients (`notifications/message`).
  let mirror: ((record: LogRecord) => void) | undefined;
  const inner = options.logger ?? nullLogger;
  const base = options.serverNotifications
    ? createLogger(
        (r) => {
          const { ts: _ts, level, event, ...fields } = r;
          inner.log(level, event, fields);
          mirror?.(r);
        },
        { level: "debug" },
      )
    : inner;
  const tags = createRunTriggerTags(base);
  const logger = tags.logger;
  const listeners = new Set<(event: RunEvent) => void>();
  if (options.onEvent) listeners.add(options.onEvent);
  let telemetry: Promise<Telemetry | undefined> | undefined;
  const telemetryReady = () => (telemetry ??= options.telemetry === "env" ? loadTelemetry({ logger }) : Promise.resolve(options.telemetry));
  /** Direct runs in flight, cancelled when a drain's grace runs out. */
  const inFlight = new Set<AbortController>();
  const runs = new Map<string, AbortController>();
  const settled = new Set<() => void>();
  let state: AgentLifecycleStatus["state"] = "running";
  let host: SelfHost | undefined;
  let servingCount = 0;
  let closing: Promise<void> | undefined;
  let draining: Promise<void> | undefined;
  let quiescing: Promise<void> | undefined;
  /** Why the agent drains (e.g. `SIGTERM`): the abort reason of the runs the grace did not cover. */
  let drainReason: string | undefined;

  const ledger = options.sampling && options.model ? new SamplingLedger() : undefined;
  // One handler per server for the agent's life: its budget window survives reconnects.
  const samplingCaps = new Map<string, CapabilityConfig | undefined>();
  const samplingFor = (server: string): CapabilityConfig | undefined => {
    if (samplingCaps.has(server)) return samplingCaps.get(server);
    const policy = options.sampling?.servers?.[server] ?? options.sampling?.all;
    const caps =
      !policy || !ledger || !options.model
        ? undefined
        : {
            ...options.capabilities,
            sampling: {
              handler: samplingHandler({
                server,
                model: options.model,
                policy,
                ledger,
                ...(options.prices ? { prices: options.prices } : {}),
                logger,
              }),
              tools: policy.tools === true,
            },
          };
    samplingCaps.set(server, caps);
    return caps;
  };
  // The operator policy: a server's elicitation goes to whoever answers for the run of its oldest call in flight.
  const operator = options.operatorElicitation ? operatorRouting(logger) : undefined;
  const calls = operator?.calls;
  const capabilitiesFor = (server: string): CapabilityConfig | undefined =>
    operator ? operator.capabilities(server, samplingFor(server) ?? options.capabilities) : samplingFor(server);
  const connections = createConnections({
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    ...(ledger || calls ? { capabilitiesFor } : {}),
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
    ...(options.httpReactivity === true ? { httpReactivity: true } : {}),
    ...(options.mcpTimeouts?.timeoutMs ? { requestTimeoutMs: options.mcpTimeouts.timeoutMs } : {}),
    ...(options.mcpTimeouts?.maxTotalTimeoutMs ? { maxTotalTimeoutMs: options.mcpTimeouts.maxTotalTimeoutMs } : {}),
    // Remote tasks started by runs are noted in the checkpoint, so a restart re-attaches instead of calling again.
    ...(options.checkpoint && options.triggers?.specs.length ? { taskJournal: options.checkpoint.tasks } : {}),
    ...(options.oauthTokenStore ? { tokenStore: options.oauthTokenStore } : {}),
    logger,
  });
  const { clients, connect } = connections;

  const optional = new Set(Object.entries(options.mcpServers ?? {}).flatMap(([name, c]) => (c.required === false ? [name] : [])));
  const builtIn = customToolSet ?? (options.subagents ? new SubagentToolSet(options.subagents) : undefined);
  const subagentTools = localTools?.size ? new LocalToolSet(localTools, builtIn) : builtIn;
  // `triggers` is read when a tool is called, by then it is built.
  const selfSubs =
    options.selfSubscribe && options.triggers?.specs.length
      ? new SelfSubscriptions({ triggers: () => config.triggers, ...options.selfSubscribe, logger })
      : undefined;
  const ownTools = selfSubs ? new SelfSubscribeToolSet(selfSubs, subagentTools) : subagentTools;
  const a2aTools =
    options.a2aAgents && Object.keys(options.a2aAgents).length ? lazyA2aTools(options.a2aAgents, ownTools, logger) : undefined;
  const extraTools = a2aTools ?? ownTools;
  const authorizations = new Map<string, AuthorizationAsk>();
  const toolSet = new McpToolSet(clients, extraTools, {
    optional,
    logger,
    ...(ledger ? { sampling: ledger } : {}),
    ...(calls ? { calls } : {}),
    authorizations: (id) => authorizations.get(id),
  });

  const run: Agent["run"] = async (input, runOptions = {}) => {
    if (!options.model)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        "no model configured: set AGENT_INTELLIGENCE, --intelligence or model.intelligence (or pass model to createAgent)",
      );
    if (state === "closed") throw new AgentdError("E_USAGE", "the agent is closed");
    if (state === "draining" || state === "drained") throw new AgentdError("E_UPSTREAM", "the agent is shutting down; not taking new runs");
    const controller = new AbortController();
    const onAbort = () => controller.abort(runOptions.signal?.reason);
    if (runOptions.signal?.aborted) onAbort();
    else runOptions.signal?.addEventListener("abort", onAbort, { once: true });
    inFlight.add(controller);
    const runId = runOptions.runId ?? newRunId();
    runs.set(runId, controller);
    if (runOptions.askOperator) operator?.asks.set(runId, runOptions.askOperator);
    if (runOptions.askAuthorization) authorizations.set(runId, runOptions.askAuthorization);
    if (runOptions.trigger) tags.tag(runId, runOptions.trigger);
    // The conversation tier: a triggered run re-run under the same run id goes on from its saved turns.
    // [served-resume] or a run that asks for it (a served run with the caller's run id).
    const conversations =
      ((runOptions.trigger || runOptions.triggerEvent) && options.triggers?.specs.length) || runOptions.resumeConversation
        ? options.checkpoint?.conversations
        : undefined;
    let aborted = false;
    // A run that can get a server authorized (an A2A task) waits for it when connecting and listing tools too.
    const ask = runOptions.askAuthorization;
    // The loop's own deadline starts after connecting and listing tools: this one bounds the waits before.
    const waiting = ask
      ? createRunSignal(runOptions.limits?.deadlineMs ?? config.settings.limits?.deadlineMs, controller.signal)
      : undefined;
    const askSignal = waiting?.signal ?? controller.signal;
    try {
      await (ask ? withAuthorization(connect, ask, askSignal) : connect());
      // Only native tool calling resumes (the JSON-action mode's turns are not saved).
      const resume = options.model.supportsTools ? await conversations?.load(runId) : undefined;
      if (resume) logger.info("conversation.resumed", { runId, messages: resume.length });
      const recorder = (await telemetryReady())?.run({
        runId,
        ...(runOptions.traceContext ? { parent: runOptions.traceContext } : {}),
        ...(runOptions.triggerEvent ? { trigger: runOptions.triggerEvent } : {}),
      });
      if (runOptions.triggerEvent) host?.metrics.triggerLag(runOptions.triggerEvent.kind, runOptions.triggerEvent.firedAt);
      const emit = (event: RunEvent) => {
        recorder?.onEvent(event);
        // With tracing on, a request names its trace (the run's history shows it; a console links it to the backend).
        const traceparent =
          event.type === "model-request" ? recorder?.carrier({ kind: "model", turn: event.turn })?.traceparent : undefined;
        const e: RunEvent = traceparent && event.type === "model-request" ? { ...event, traceId: traceparent.split("-")[1]! } : event;
        // A triggered run's events fill its record in the served run history (a no-op for other runs).
        if (runOptions.trigger || runOptions.triggerEvent) host?.registry.observe(runId, e);
        for (const l of listeners) l(e);
        runOptions.onEvent?.(e);
      };
      const result = await runLoop({
        model: options.model,
        tools: ask
          ? { list: () => withAuthorization(() => toolSet.list(), ask, askSignal), call: (n, a, c) => toolSet.call(n, a, c) }
          : toolSet,
        input,
        runId,
        ...(config.settings.instructions !== undefined ? { instructions: config.settings.instructions } : {}),
        limits: { ...config.settings.limits, ...runOptions.limits },
        ...(config.settings.prices ? { prices: config.settings.prices } : {}),
        ...(config.settings.scope ? { scope: config.settings.scope } : {}),
        ...(runOptions.outputSchema ? { outputSchema: runOptions.outputSchema } : {}),
        ...(runOptions.maxOutputRetries !== undefined ? { maxOutputRetries: runOptions.maxOutputRetries } : {}),
        signal: controller.signal,
        ...(runOptions.stream ? { stream: true } : {}),
        ...(runOptions.backpressure ? { backpressure: runOptions.backpressure } : {}),
        onEvent: emit,
        logger: logger.child({ runId }),
        ...(recorder ? { tracer: recorder } : {}),
        ...(resume ? { resume } : {}),
        ...(conversations ? { onTurn: (messages: readonly ModelMessage[]) => void conversations.save(runId, messages) } : {}),
      });
      const sampling = ledger?.takeRun(runId);
      return sampling ? { ...result, sampling } : result;
    } catch (e) {
      // Aborted (a shutdown, a lost claim): the conversation stays for the re-run.
      aborted = AgentdError.isInstance(e) && e.code === "E_ABORTED";
      throw e;
    } finally {
      if (conversations && !aborted) await conversations.end(runId);
      ledger?.takeRun(runId);
      if (runOptions.trigger) tags.untag(runId);
      runOptions.signal?.removeEventListener("abort", onAbort);
      inFlight.delete(controller);
      if (runs.get(runId) === controller) runs.delete(runId);
      operator?.asks.delete(runId);
      if (authorizations.get(runId) === runOptions.askAuthorization) authorizations.delete(runId);
      waiting?.dispose();
      for (const s of settled) s();
    }
  };

  const checkpoint = options.triggers?.specs.length ? options.checkpoint : undefined;
  // Served tasks are kept in the checkpoint too (triggers or not): a restart re-runs the ones still working.
  const servedCheckpoint = options.capabilities?.tasks ? options.checkpoint : undefined;
  let servedRestored: Promise<void> | undefined;
  let checkpointArmed = false;
  // What a reload may change: the settings each run reads, and the triggers.
  const config: LiveConfig = new LiveConfig({
    settings: {
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.prices ? { prices: options.prices } : {}),
      ...(options.scope ? { scope: options.scope } : {}),
      ...(options.prompts ? { prompts: options.prompts } : {}),
      ...(options.capabilities?.roots ? { roots: options.capabilities.roots } : {}),
    },
    triggers: options.triggers,
    // Served prompts are replaced on the one served MCP server (every session gets prompts/list_changed);
    // roots on every connected server that was told roots (each gets roots/list_changed).
    applyLive: async (settings, changed) => {
      if (changed.has("prompts")) host?.self.prompts?.set(settings.prompts ?? {});
      if (changed.has("roots") && settings.roots) {
        const roots = settings.roots;
        await Promise.all(
          [...clients.values()].map((c) =>
            c
              .setRoots(roots)
              .catch((e: unknown) => logger.warn("mcp.roots_update_failed", { server: c.name, error: (e as Error).message })),
          ),
        );
      }
    },
    // The checkpoint is restored once, by the first triggers; a reload's triggers are not restored again
    // (their self-arranged subscriptions are dropped with the triggers they replaced, as without a checkpoint).
    build: (o) => {
      const first = !checkpointArmed;
      checkpointArmed = true;
      return createAgentTriggers({
        ...o,
        agent: { connect, run, clients },
        tags,
        host: () => host,
        ...(checkpoint && first
          ? checkpointHooks(checkpoint, () => ({
              specs: o.specs,
              triggers: config.triggers as AgentTriggers,
              ...(selfSubs ? { selfSubscriptions: selfSubs } : {}),
              ...(options.subagents ? { supervisor: options.subagents } : {}),
            }))
          : {}),
      });
    },
    source: options.reload,
    hasModel: options.model !== undefined,
    // Triggers added to an agent that had none are armed when it serves (as `agentd serve` arms them).
    armNew: (old) => old?.isStarted === true || (old === undefined && servingCount > 0),
    onTriggers: (t) => {
      const h = host;
      if (h) t.onChange(() => void h.self.server.notifyResourceUpdated("agent://status"));
    },
    logger,
  });

  const ready = async (): Promise<{ ok: true } | { ok: false; reason: string }> => {
    if (!options.model) return { ok: false, reason: "model not configured" };
    try {
      await connect();
      return { ok: true };
    } catch (e) {
      return { ok: false, reason: `not ready: ${(e as Error).message}` };
    }
  };
  const selfHost = (): SelfHost => {
    if (host) return host;
    const created: SelfHost = new SelfHost({
      runner: {
        run: (input, o) =>
          created.isDraining
            ? Promise.reject(new AgentdError("E_UPSTREAM", "agentd is shutting down; not taking new runs"))
            : run(input, o),
      },
      ...(options.version !== undefined ? { version: options.version } : {}),
      capabilities: { serverNotifications: options.serverNotifications === true, ...(options.capabilities?.tasks ? { tasks: true } : {}) },
      ...(options.operators ? { operators: canonicalOperators(options.operators, "operators") } : {}),
      ...(options.runHistory ? { runHistory: options.runHistory } : {}),
      ...(options.taskSupport ? { taskSupport: options.taskSupport } : {}),
      ...(servedCheckpoint ? { taskJournal: servedCheckpoint.served } : {}),
      ...(options.servedRuns ? { servedRuns: options.servedRuns } : {}),
      ...(config.settings.prompts ? { prompts: config.settings.prompts } : {}),
      ...(config.triggers || options.reload ? { triggers: () => config.triggers?.status() ?? [] } : {}),
      control: operatorControl(),
      ...(ledger ? { sampling: () => ledger.byServer() } : {}),
      ...(options.subagents || localTools?.size
        ? {
            extend: (server, _runs, access) => {
              if (localTools) registerLocalTools(server, localTools);
              if (options.subagents) registerSubagentSurface(server, options.subagents, access);
            },
          }
        : {}),
      ready,
      console: agentConsoleFacts({
        ...(options.version !== undefined ? { version: options.version } : {}),
        clients,
        ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
        ...(options.a2aAgents ? { a2aAgents: options.a2aAgents } : {}),
        ...(options.subagents ? { supervisor: options.subagents } : {}),
        lifecycle: () => ({ ...agent.status() }),
        ready,
        ...(config.triggers || options.reload ? { triggers: () => config.triggers?.status() ?? [] } : {}),
        // A reload may replace the triggers: each listener follows whichever table is current.
        onTriggersChange: (listener) => {
          let off = config.triggers?.onChange(listener);
          const offReload = config.onReload(() => {
            off?.();
            off = config.triggers?.onChange(listener);
            listener();
          });
          return () => {
            off?.();
            offReload();
          };
        },
      }),
      logger,
    });
    if (options.serverNotifications) mirror = (r) => created.self.mirrorLog(r);
    config.triggers?.onChange(() => void created.self.server.notifyResourceUpdated("agent://status"));
    return (host = created);
  };

  /** Resolve once no direct run is in flight, or at `deadline`. */
  const runsSettled = async (deadline: number) => {
    while (inFlight.size > 0 && Date.now() < deadline)
      await new Promise<void>((resolve) => {
        const cancel = setLongTimeout(done, deadline - Date.now());
        settled.add(done);
        function done() {
          cancel();
          settled.delete(done);
          resolve();
        }
      });
  };

  const close = async (): Promise<void> => {
    closing ??= (async () => {
      state = "closed";
      // Served tasks stopped by the shutdown stay working in the checkpoint: a restart re-runs them.
      if (servedCheckpoint) host?.self.tasks?.close();
      // Every request still in flight gets its final answer first (the run cancelled by the shutdown), then
      // its run is cancelled with the same words.
      const cancelled = new AgentdError("E_ABORTED", `run cancelled by shutdown (${drainReason ?? "the agent is closing"})`);
      host?.interrupt(cancelled.message);
      // An operator's drain may hold the triggers' stop open with its own grace: their runs are cancelled first.
      if (quiescing) for (const c of inFlight) c.abort(cancelled);
      await Promise.all(config.allTriggers().map((t) => t.stop({ graceMs: 0 })));
      for (const c of inFlight) c.abort(cancelled);
      await a2aTools?.settle();
      await host?.close();
      // Written before the children are stopped: a working handle stays working in the checkpoint, so a
      // restart (a pod rescheduled) starts it again rather than finding it cancelled.
      await checkpoint?.close().catch((e: unknown) => logger.warn("checkpoint.close-failed", { error: String(e) }));
      if (servedCheckpoint && servedCheckpoint !== checkpoint)
        await servedCheckpoint.close().catch((e: unknown) => logger.warn("checkpoint.close-failed", { error: String(e) }));
      // [served-resume] a checkpoint used only for served runs' conversations: its store connection is released too.
      if (!checkpoint && !servedCheckpoint)
        await options.checkpoint?.close().catch((e: unknown) => logger.warn("checkpoint.close-failed", { error: String(e) }));
      await options.subagents?.shutdown();
      await connections.close();
      await options.oauthTokenStore?.close?.().catch((e: unknown) => logger.warn("oauth.token-store-close-failed", { error: String(e) }));
      await options.servedRuns?.close?.().catch(() => {});
      // Only a backend the agent loaded itself is the agent's to stop; shutting down flushes it first.
      if (options.telemetry === "env") await (await telemetry)?.shutdown().catch(() => {});
    })();
    return closing;
  };

  /**
   * Stop taking work (runs, triggers, served requests) and let what is in flight finish; at `graceMs`
   * (Infinity: never) cancel what is left. The agent stays up (serving status) until closed.
   */
  const quiesce = (graceMs: number, reason: string): Promise<void> =>
    (quiescing ??= (async () => {
      state = "draining";
      drainReason = reason;
      host?.stopTaking();
      const deadline = Date.now() + graceMs;
      logger.info("agent.draining", { reason, ...(graceMs !== Infinity ? { graceMs } : {}), inFlight: inFlight.size });
      const triggersStopped = Promise.all(config.allTriggers().map((t) => t.stop({ graceMs: Math.min(graceMs, MAX_TIMEOUT_MS) })));
      await runsSettled(deadline);
      await host?.settle(deadline);
      // The triggers abort their own runs at the grace (so those end `aborted`); then the rest, unless closing.
      await triggersStopped;
      if (draining || state !== "draining") return;
      for (const c of inFlight) c.abort(drainReason ?? reason);
      state = "drained";
      logger.info("agent.drained", { reason });
    })());

  /** What the A2A operator channel reaches (a2a/server/operator.ts). */
  function operatorControl(): OperatorControl {
    return {
      lifecycle: () => agent.status(),
      drain: (graceMs, reason) => agent.drain(graceMs, reason, { close: false }),
      cancelRun: (runId, reason) => agent.cancel(runId, reason),
      runIds: () => agent.runIds(),
      pauseTriggers: (ids) => agent.pauseTriggers(ids),
      resumeTriggers: (ids) => agent.resumeTriggers(ids),
      reload: () => agent.reload(),
    };
  }

  const noTriggers = () => new AgentdError("E_USAGE", "no trigger is configured: there is nothing to pause or resume");

  const agent: Agent = {
    clients,
    connect,
    run,
    stream(input, streamOptions = {}) {
      const { highWaterMark, signal, onEvent, ...rest } = streamOptions;
      const runId = rest.runId ?? newRunId();
      return streamRun(runId, (hooks) => run(input, { ...rest, runId, stream: rest.stream ?? true, ...hooks }), {
        ...(signal ? { signal } : {}),
        ...(highWaterMark !== undefined ? { highWaterMark } : {}),
        ...(onEvent ? { onEvent } : {}),
      });
    },
    get triggers() {
      return config.triggers;
    },
    supervisor: options.subagents,
    async listTools() {
      await connect();
      return toolSet.list();
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      if (!config.triggers)
        throw new AgentdError("E_USAGE", "no trigger is configured: pass triggers.specs (or a config with a triggers block)");
      if (state !== "running") throw new AgentdError("E_USAGE", "the agent is shutting down");
      return config.triggers.start();
    },
    async serve(serveOptions) {
      if (state !== "running") throw new AgentdError("E_USAGE", "the agent is shutting down");
      const h = selfHost();
      // Before the first endpoint answers: a client polling a task from before a restart finds it working.
      if (servedCheckpoint)
        await (servedRestored ??= servedCheckpoint.servedTasks().then((records) => {
          const restored = h.self.tasks?.restore(records) ?? 0;
          if (records.length) logger.info("checkpoint.served-tasks-restored", { key: servedCheckpoint.key, tasks: restored });
        }));
      const serving = await h.serve(serveOptions);
      servingCount++;
      return serving;
    },
    drain(graceMs, reason = "drain", drainOptions = {}) {
      // A second drain joins the first (its grace stands); `close()` is the way to stop at once.
      if (state === "closed") return close();
      if (drainOptions.close === false) return quiesce(graceMs, reason);
      draining ??= (async () => {
        drainReason = reason;
        // An operator's drain may be going already (with a longer grace): this one's grace bounds the wait.
        if (quiescing)
          await new Promise<void>((resolve) => {
            const cancel = setLongTimeout(resolve, graceMs);
            void quiescing!.then(() => {
              cancel();
              resolve();
            });
          });
        else await quiesce(graceMs, reason);
        await close();
      })();
      return draining;
    },
    cancel(runId, reason = "canceled by an operator") {
      const c = runs.get(runId);
      if (!c) return false;
      c.abort(new AgentdError("E_ABORTED", reason));
      return true;
    },
    runIds: () => [...runs.keys()],
    async pauseTriggers(ids) {
      if (!config.triggers) throw noTriggers();
      return config.triggers.pause(ids);
    },
    async resumeTriggers(ids) {
      if (!config.triggers) throw noTriggers();
      if (state !== "running") throw new AgentdError("E_USAGE", "the agent is draining: its triggers stay stopped");
      return config.triggers.resume(ids);
    },
    reload() {
      if (state !== "running") return Promise.reject(new AgentdError("E_USAGE", "the agent is draining: it takes no new configuration"));
      return config.reload();
    },
    onReload: (listener) => config.onReload(listener),
    status() {
      return {
        state,
        model: options.model !== undefined,
        inFlight: inFlight.size,
        triggers: config.triggers?.status() ?? [],
        serving: servingCount,
        ...(ledger ? { sampling: ledger.byServer() } : {}),
      };
    },
    close,
    [Symbol.asyncDispose]() {
      return agent.close();
    },
  };
  return agent;
}
