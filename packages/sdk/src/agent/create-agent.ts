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
 *
 * This file only assembles the pieces, each its own module: the connections (agent-connections.ts), the
 * tools (agent-tools.ts, agent-subagents.ts), running a run (run-agent.ts), the triggers and live settings
 * (live-triggers.ts), serving (agent-serving.ts) and the lifecycle and shutdown (agent-lifecycle.ts).
 */
import type { RunEvent } from "../loop/events.ts";
import { loadTelemetry } from "../telemetry/load-telemetry.ts";
import type { Telemetry } from "../telemetry/types.ts";
import { AgentdError } from "../wire/errors.ts";
import { agentConnections } from "./connections/agent-connections.ts";
import { AgentLifecycle } from "./run/agent-lifecycle.ts";
import { agentLogging } from "./run/agent-logging.ts";
import type { AgentOptions } from "./agent-options.ts";
import { AgentServing } from "./serving/agent-serving.ts";
import { ownTools, servedOwnTools } from "./tools/agent-subagents.ts";
import { streamRun } from "./run/agent-stream.ts";
import { agentTools } from "./tools/agent-tools.ts";
import type { Agent } from "./agent-types.ts";
import { liveTriggers } from "./live/live-triggers.ts";
import { createRun, newRunId } from "./run/run-agent.ts";
import { ConversationsOf } from "./conversations/agent-conversations.ts";

export type { AgentCapabilities, AgentDurability, AgentLimits, AgentOptions, AgentServeOptions } from "./agent-options.ts";
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
  const { logger, tags, mirrorTo } = agentLogging(options.logger, options.capabilities?.serverNotifications === true);
  const listeners = new Set<(event: RunEvent) => void>();
  if (options.onEvent) listeners.add(options.onEvent);
  let telemetry: Promise<Telemetry | undefined> | undefined;
  const telemetryReady = () => (telemetry ??= options.telemetry === "env" ? loadTelemetry({ logger }) : Promise.resolve(options.telemetry));

  const connected = agentConnections(options, logger);
  const { clients, connect } = connected.connections;
  const tools = agentTools(options, { clients, own: own.tools, connected, triggers: () => config.triggers, logger });
  const { durability } = options;
  const checkpoint = options.triggers?.specs.length ? durability?.checkpoint : undefined;
  // Served tasks are kept in the checkpoint too (triggers or not): a restart re-runs the ones still working.
  const servedCheckpoint = options.capabilities?.tasks ? durability?.checkpoint : undefined;

  const lifecycle: AgentLifecycle = new AgentLifecycle({
    host: () => serving.host,
    triggers: () => config.allTriggers(),
    beforeClose: () => {
      // Served tasks stopped by the shutdown stay working in the checkpoint: a restart re-runs them.
      if (servedCheckpoint) serving.host?.self.tasks?.close();
    },
    release: async () => {
      await tools.a2aTools?.settle();
      await serving.host?.close();
      // Written before the children are stopped: a working handle stays working in the checkpoint, so a
      // restart (a pod rescheduled) starts it again rather than finding it cancelled.
      await checkpoint?.close().catch((e: unknown) => logger.warn("checkpoint.close-failed", { error: String(e) }));
      if (servedCheckpoint && servedCheckpoint !== checkpoint)
        await servedCheckpoint.close().catch((e: unknown) => logger.warn("checkpoint.close-failed", { error: String(e) }));
      // A checkpoint used only for served runs' conversations: its store connection is released too.
      if (!checkpoint && !servedCheckpoint)
        await durability?.checkpoint?.close().catch((e: unknown) => logger.warn("checkpoint.close-failed", { error: String(e) }));
      await options.subagents?.shutdown();
      await connected.connections.close();
      await durability?.oauthTokens?.close?.().catch((e: unknown) => logger.warn("oauth.token-store-close-failed", { error: String(e) }));
      await durability?.servedRuns?.close?.().catch(() => {});
      await conversations.close().catch(() => {});
      // Only a backend the agent loaded itself is the agent's to stop; shutting down flushes it first.
      if (options.telemetry === "env") await (await telemetry)?.shutdown().catch(() => {});
    },
    logger,
  });
  const conversations = new ConversationsOf(options.conversations);
  const run = createRun(options, {
    conversations,
    lifecycle,
    connect,
    toolSet: tools.toolSet,
    authorizations: tools.authorizations,
    connected,
    settings: () => config.settings,
    tags,
    listeners,
    telemetry: telemetryReady,
    host: () => serving.host,
    logger,
  });
  const config = liveTriggers(options, {
    agent: { connect, run, clients },
    clients,
    tags,
    host: () => serving.host,
    serving: () => serving.count,
    checkpoint,
    selfSubs: tools.selfSubs,
    supervisor: options.subagents,
    logger,
  });
  const serving = new AgentServing(options, {
    agent: () => agent,
    run,
    connect,
    clients,
    config: () => config,
    ledger: connected.ledger,
    extend: servedOwnTools(options, own.localTools),
    servedCheckpoint,
    mirrorTo,
    logger,
  });

  const noTriggers = () => new AgentdError("E_USAGE", "no trigger is configured: there is nothing to pause or resume");
  const agent: Agent = {
    clients,
    conversations: conversations.api(),
    connect,
    run,
    stream(input, streamOptions = {}) {
      const { highWaterMark, signal, onEvent, ...rest } = streamOptions;
      const runId = rest.runId ?? newRunId();
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
      await connect();
      return tools.toolSet.list();
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      if (!config.triggers)
        throw new AgentdError("E_USAGE", "no trigger is configured: pass triggers.specs (or a config with a triggers block)");
      if (lifecycle.state !== "running") throw new AgentdError("E_USAGE", "the agent is shutting down");
      return config.triggers.start();
    },
    async serve(serveOptions?) {
      if (lifecycle.state !== "running") throw new AgentdError("E_USAGE", "the agent is shutting down");
      return serving.serve(serveOptions);
    },
    drain: (graceMs, reason = "drain", drainOptions = {}) => lifecycle.drain(graceMs, reason, drainOptions),
    cancel: (runId, reason = "canceled by an operator") => lifecycle.cancel(runId, reason),
    runIds: () => lifecycle.runIds(),
    async pauseTriggers(ids) {
      if (!config.triggers) throw noTriggers();
      return config.triggers.pause(ids);
    },
    async resumeTriggers(ids) {
      if (!config.triggers) throw noTriggers();
      if (lifecycle.state !== "running") throw new AgentdError("E_USAGE", "the agent is draining: its triggers stay stopped");
      return config.triggers.resume(ids);
    },
    reload() {
      if (lifecycle.state !== "running")
        return Promise.reject(new AgentdError("E_USAGE", "the agent is draining: it takes no new configuration"));
      return config.reload();
    },
    onReload: (listener) => config.onReload(listener),
    status() {
      return {
        state: lifecycle.state,
        model: options.model !== undefined,
        inFlight: lifecycle.inFlight.size,
        triggers: config.triggers?.status() ?? [],
        serving: serving.count,
        sampling: connected.ledger?.byServer(),
      };
    },
    close: () => lifecycle.close(),
    [Symbol.asyncDispose]() {
      return agent.close();
    },
  };
  return agent;
}
