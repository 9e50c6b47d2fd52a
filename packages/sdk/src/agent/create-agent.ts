/**
 * `createAgent`: the SDK's front door, the whole agent. It connects the configured MCP servers, offers
 * their tools to the model as `server/tool` (with the subagent tools when it supervises subagents), runs
 * the agentic loop under the configured budgets, wakes on its triggers (`start()`), serves its MCP surface
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
 *
 * This file only assembles the pieces, in the order the rooms of `agent/` are read, each built from what was
 * built before it: the connections (connections/), the tools (tools/), the runs and the lifecycle (run/),
 * the live configuration and triggers (live/), and serving (serving/). Where an earlier part must reach a
 * later one at runtime, the later one registers itself when it is built (`lifecycle.attach(served)`,
 * `live.attach(served)`, `tools.attachTriggers(live)`); nothing reaches forward through a closure.
 */
import { ConversationsOf } from "./conversations/agent-conversations.ts";
import type { RunEvent } from "../loop/events.ts";
import { runIdOr } from "../loop/run-id.ts";
import { loadTelemetry } from "../telemetry/load-telemetry.ts";
import { otelSignalsFromEnv } from "../telemetry/otel-env.ts";
import type { Telemetry } from "../telemetry/types.ts";
import { AgentdError } from "../wire/errors.ts";
import type { AgentOptions } from "./types/agent-options.ts";
import type { Agent, AgentLifecycleStatus } from "./agent-types.ts";
import { type AgentConnections, agentConnections } from "./connections/agent-connections.ts";
import { createLiveConfig, initialSettings } from "./live/agent-live-config.ts";
import { type TriggerControls, triggerControls } from "./live/trigger-controls.ts";
import type { LiveConfig } from "./live/live-config.ts";
import type { AgentCheckpoint } from "./checkpoint/agent-checkpoint.ts";
import type { Logger } from "../log.ts";
import { AgentLifecycle } from "./run/agent-lifecycle.ts";
import { agentLogging } from "./run/agent-logging.ts";
import { streamRun } from "./run/agent-stream.ts";
import { createResume } from "./run/resume-run.ts";
import { createRun, type RunObservers } from "./run/run-agent.ts";
import { AgentWaiting } from "./run/run-waiting.ts";
import { Runs } from "./run/runs.ts";
import type { AgentServing, ServingParts } from "./serving/agent-serving.ts";
import type { ServeOptions, ServedEndpoint } from "./types/serve-options.ts";
import { ownTools } from "./tools/agent-subagents.ts";
import { type AgentTools, agentTools } from "./tools/agent-tools.ts";

export type { AgentCapabilities, AgentDurability, AgentLimits, AgentOptions, AgentServeOptions } from "./types/agent-options.ts";
export type { Agent, AgentLifecycleStatus, AgentRunOptions, AgentStreamOptions, DrainOptions } from "./agent-types.ts";
export { newRunId } from "./run/run-agent.ts";

/**
 * Create an agent. Nothing is connected until `connect()`, the first `run()`, `start()` or `serve()`.
 *
 * Example:
 * {@includeCode ../../../../examples/sdk-usage/api/create-agent.examples.ts#createAgent}
 */
export function createAgent(options: AgentOptions): Agent {
  const own = ownTools(options);
  if (options.triggers?.specs.length && !options.model)
    throw new AgentdError("E_CONFIG_INVALID", "triggers are configured but no model is: set AGENT_INTELLIGENCE or model.intelligence");
  // The OTEL_* settings are checked before anything starts: a protocol agentd cannot export over (grpc) is
  // one line now, not after every MCP server was started.
  if (options.telemetry === "env") otelSignalsFromEnv(process.env);
  // The one table of runs in flight: the logger finds a run's trigger in it, the connections and tools its askers and sampling.
  const runs = new Runs();
  const { logger, mirrorTo } = agentLogging(
    options.logger,
    options.capabilities?.serverNotifications === true,
    (id) => runs.get(id)?.trigger,
  );
  const listeners = new Set<(event: RunEvent) => void>();
  if (options.onEvent) listeners.add(options.onEvent);
  let telemetry: Promise<Telemetry | undefined> | undefined;
  const telemetryReady = () => (telemetry ??= options.telemetry === "env" ? loadTelemetry({ logger }) : Promise.resolve(options.telemetry));

  // 1. Connections, 2. tools.
  const connected = agentConnections(options, runs, logger);
  const { clients, connect } = connected.connections;
  const tools = agentTools(options, { clients, own: own.tools, connected, runs, logger });

  // 3. Runs and the lifecycle.
  const { durability } = options;
  const checkpoint = options.triggers?.specs.length ? durability?.checkpoint : undefined;
  // Served tasks are kept in the checkpoint too (triggers or not): a restart re-runs the ones still working.
  const servedCheckpoint = options.capabilities?.tasks ? durability?.checkpoint : undefined;
  // The conversations runs continue (docs/conversations.md): opened on first use, closed with the agent.
  const conversations = new ConversationsOf(options.conversations);
  // Runs that wait for a person's decision, saved (docs/approvals.md, "Waiting durably").
  const waiting = new AgentWaiting(durability?.waitingRuns, durability?.resumeLease);
  const lifecycle = new AgentLifecycle(runs, {
    beforeEndpointsClose: async () => void (await tools.a2aTools?.settle()),
    release: releaseAll(options, { connected, checkpoint, servedCheckpoint, conversations, waiting, telemetry: () => telemetry, logger }),
    logger,
  });
  const settings = { current: initialSettings(options) };
  const observers: { current: RunObservers | undefined } = { current: undefined };
  const runParts = {
    lifecycle,
    connect,
    toolSet: tools.toolSet,
    settings: () => settings.current,
    listeners,
    telemetry: telemetryReady,
    observers,
    conversations,
    waiting,
    logger,
  };
  const run = createRun(options, runParts);
  const resume = createResume(options, runParts);

  // 4. The live configuration and its triggers.
  const live = createLiveConfig(options, {
    agent: { connect, run, clients },
    clients,
    settings,
    checkpoint,
    selfSubs: tools.selfSubs,
    supervisor: options.subagents,
    logger,
  });
  const { config } = live;
  lifecycle.attachTriggers(config);
  tools.attachTriggers(config);
  const controls = triggerControls(config, lifecycle);
  const statusWith = (endpoints: number): AgentLifecycleStatus => ({
    state: lifecycle.state,
    model: options.model !== undefined,
    inFlight: runs.size,
    triggers: config.triggers?.status() ?? [],
    serving: endpoints,
    sampling: connected.ledger?.byServer(),
  });

  // 5. Serving: its parts are named now, its modules (the HTTP server, A2A, the console) load on the first serve().
  const serving = new LazyServing(
    options,
    () => lifecycle.state === "running",
    async () => ({
      run,
      connect,
      clients,
      live,
      lifecycle,
      status: statusWith,
      control: servingControl(lifecycle, controls),
      ledger: connected.ledger,
      extend: (await import("./tools/served-own-tools.ts")).servedOwnTools(options, own.localTools),
      servedCheckpoint,
      conversations: conversations.served(),
      mirrorTo,
      observers,
      waiting,
      resume,
      logger,
    }),
  );

  return agentOf(options, {
    run,
    resume,
    connect,
    clients,
    tools,
    listeners,
    lifecycle,
    controls,
    config,
    serving,
    statusWith,
    conversations,
  });
}

/** What serving controls of the agent: its drain, its runs, its triggers, a reload. */
function servingControl(lifecycle: AgentLifecycle, controls: TriggerControls): ServingParts["control"] {
  return {
    drain: (graceMs, reason) => lifecycle.drain(graceMs, reason, { close: false }),
    cancelRun: (runId, reason) => lifecycle.cancel(runId, reason),
    runIds: () => lifecycle.runIds(),
    pauseTriggers: (ids) => controls.pause(ids),
    resumeTriggers: (ids) => controls.resume(ids),
    reload: () => controls.reload(),
  };
}

/** Everything the agent holds, released in order once its runs are cancelled and its endpoints closed. */
function releaseAll(
  options: AgentOptions,
  held: {
    connected: AgentConnections;
    checkpoint: AgentCheckpoint | undefined;
    servedCheckpoint: AgentCheckpoint | undefined;
    conversations: ConversationsOf;
    waiting: AgentWaiting;
    telemetry: () => Promise<Telemetry | undefined> | undefined;
    logger: Logger;
  },
): () => Promise<void> {
  const { durability } = options;
  const { checkpoint, servedCheckpoint, logger } = held;
  const closeFailed = (what: string) => (e: unknown) => logger.warn(what, { error: String(e) });
  return async () => {
    // Written before the children are stopped: a working handle stays working in the checkpoint, so a
    // restart (a pod rescheduled) starts it again rather than finding it cancelled.
    await checkpoint?.close().catch(closeFailed("checkpoint.close-failed"));
    if (servedCheckpoint && servedCheckpoint !== checkpoint) await servedCheckpoint.close().catch(closeFailed("checkpoint.close-failed"));
    // A checkpoint used only for served runs' conversations: its store connection is released too.
    if (!checkpoint && !servedCheckpoint) await durability?.checkpoint?.close().catch(closeFailed("checkpoint.close-failed"));
    await options.subagents?.shutdown();
    await held.connected.connections.close();
    await held.conversations.close().catch(() => {});
    await held.waiting.close().catch(() => {});
    await durability?.oauthTokens?.close?.().catch(closeFailed("oauth.token-store-close-failed"));
    await durability?.servedRuns?.close?.().catch(() => {});
    await options.approvals?.desk?.close?.().catch(closeFailed("approvals.close-failed"));
    // Only a backend the agent loaded itself is the agent's to stop; shutting down flushes it first.
    if (options.telemetry === "env") await (await held.telemetry())?.shutdown().catch(() => {});
  };
}

/** The parts the {@link Agent} object is made of, all built. */
interface AgentParts {
  run: Agent["run"];
  resume: Agent["resume"];
  connect: () => Promise<void>;
  clients: Agent["clients"];
  tools: AgentTools;
  listeners: Set<(event: RunEvent) => void>;
  lifecycle: AgentLifecycle;
  controls: TriggerControls;
  config: LiveConfig;
  serving: LazyServing;
  statusWith: (endpoints: number) => AgentLifecycleStatus;
  conversations: ConversationsOf;
}

/** The agent its caller holds: each method hands on to the part that does it. */
function agentOf(options: AgentOptions, p: AgentParts): Agent {
  const { run, lifecycle, controls, config, serving } = p;
  const agent: Agent = {
    clients: p.clients,
    conversations: p.conversations.api(),
    connect: p.connect,
    run,
    resume: p.resume,
    stream(input, streamOptions = {}) {
      const { highWaterMark, signal, onEvent, ...rest } = streamOptions;
      const runId = runIdOr(rest.runId);
      return streamRun(runId, (hooks) => run(input, { ...rest, runId, stream: rest.stream ?? true, ...hooks }), {
        signal,
        highWaterMark,
        onEvent,
      });
    },
    get triggers() {
      return config.triggers;
    },
    supervisor: options.subagents,
    async listTools() {
      await p.connect();
      return p.tools.toolSet.list();
    },
    on(listener) {
      p.listeners.add(listener);
      return () => p.listeners.delete(listener);
    },
    start: () => controls.start(),
    async serve(serveOptions?) {
      if (lifecycle.state !== "running") throw new AgentdError("E_USAGE", "the agent is shutting down");
      return serving.serve(serveOptions);
    },
    drain: (graceMs, reason = "drain", drainOptions = {}) => lifecycle.drain(graceMs, reason, drainOptions),
    cancel: (runId, reason = "canceled by an operator") => lifecycle.cancel(runId, reason),
    runIds: () => lifecycle.runIds(),
    pauseTriggers: (ids) => controls.pause(ids),
    resumeTriggers: (ids) => controls.resume(ids),
    reload: () => controls.reload(),
    onReload: (listener) => config.onReload(listener),
    status: () => p.statusWith(serving.count),
    close: () => lifecycle.close(),
    [Symbol.asyncDispose]() {
      return lifecycle.close();
    },
  };
  return agent;
}

/**
 * The agent's serving, loaded on the first `serve()`: a run, a trigger or a status read never loads the HTTP
 * server, A2A, the console or the run history (about a third of the SDK's code, which a one-shot run pays
 * for at start otherwise). Concurrent first calls share one load, hence one served agent.
 */
class LazyServing {
  private loaded: Promise<AgentServing> | undefined;
  /** Endpoints being served (0 until the first serve() resolves). */
  get count(): number {
    return this.serving?.count ?? 0;
  }
  private serving: AgentServing | undefined;

  constructor(
    private readonly options: AgentOptions,
    private readonly running: () => boolean,
    private readonly parts: () => Promise<ServingParts>,
  ) {}

  /** See {@link Agent.serve}. */
  async serve(serveOptions: ServeOptions | undefined): Promise<ServedEndpoint> {
    this.loaded ??= Promise.all([import("./serving/agent-serving.ts"), this.parts()]).then(([{ AgentServing }, parts]) => {
      this.serving = new AgentServing(this.options, parts);
      return this.serving;
    });
    const serving = await this.loaded;
    // A close() while the modules loaded: nothing is attached to the lifecycle yet, so nothing would stop this endpoint.
    if (!this.running()) throw new AgentdError("E_USAGE", "the agent is shutting down");
    return serving.serve(serveOptions);
  }
}
