/**
 * `createAgent`: the SDK's front door. It connects the configured MCP servers, offers their tools to the
 * model as `server/tool`, and runs the agentic loop under the configured budgets.
 *
 * ```ts
 * import { createAgent } from "@agentd/sdk";
 * import { createModel } from "@agentd/adapters";
 * const agent = createAgent({ model: createModel({ dialect: "openai", baseURL, model: "qwen3" }),
 *   mcpServers: { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"] } } });
 * const { text, usage } = await agent.run("Summarise /data/inbox.md");
 * await agent.close();
 * ```
 */
import type { McpServerConfig } from "../config/schema.ts";
import { nullLogger, type Logger } from "../log.ts";
import type { RunEvent } from "../loop/events.ts";
import type { ModelPrices, RunLimits } from "../loop/budget.ts";
import type { LanguageModel } from "../loop/model.ts";
import { runLoop, type RunResult } from "../loop/run-loop.ts";
import type { RunScope } from "../loop/scope.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";
import type { ToolDescriptor, ToolSet } from "../loop/tools.ts";
import type { CapabilityConfig } from "../mcp/capabilities.ts";
import type { ReconnectPolicy } from "../mcp/managed/backoff.ts";
import type { ManagedMcpClient } from "../mcp/managed/managed-client.ts";
import { loadTelemetry } from "../telemetry/load-telemetry.ts";
import type { Telemetry } from "../telemetry/types.ts";
import { AgentdError } from "../wire/errors.ts";
import { connectManagedServer } from "./connect-server.ts";
import { McpToolSet } from "./mcp-tool-set.ts";

/** Options of {@link createAgent}. */
export interface AgentOptions {
  /** The model, from `@agentd/adapters` (`createModel`) or any `LanguageModel`. */
  model: LanguageModel;
  /** MCP servers in the ecosystem's usual shape: `{ command, args, env, cwd }` or `{ url, headers }`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** System instructions (trusted). */
  instructions?: string;
  limits?: RunLimits;
  /** Prices per million tokens; needed for `limits.maxCostUsd`. */
  prices?: ModelPrices;
  /** Allow-list of `server/tool` globs. */
  scope?: RunScope;
  /** Deferred-surface switches for the MCP clients (default: the seed's v1 fallbacks). */
  capabilities?: CapabilityConfig;
  /**
   * How a dropped MCP connection is re-established (stdio child exited, HTTP session expired): bounded
   * exponential backoff with full jitter. Default: first wait ≤ 250 ms, waits ≤ 30 s, never give up.
   */
  reconnect?: Partial<ReconnectPolicy>;
  /**
   * D7a, reactivity over HTTP (default true): server push on the GET stream, so subscriptions work on HTTP
   * servers. false is the seed's v1 fallback: HTTP servers request/response only, their subscription
   * triggers reported unavailable.
   */
  httpReactivity?: boolean;
  /** Extra tools offered besides the MCP servers' (e.g. self-tools). */
  tools?: ToolSet;
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
  /** Stream model output (`text-delta` events). */
  stream?: boolean;
  /** Events of this run only. */
  onEvent?: (event: RunEvent) => void;
  /** Overrides the agent's limits for this run. */
  limits?: RunLimits;
  /** The caller's W3C trace context (e.g. from an `agent.run` request's `_meta`): the run's span is its child. */
  traceContext?: TraceCarrier;
  /** The trigger whose event started this run, and when the event happened (telemetry: trigger lag). */
  trigger?: { id: string; kind: string; firedAt: Date };
}

/** A configured agent. */
export interface Agent {
  /** Connect every MCP server (run() does this lazily). Rejects with E_UPSTREAM when a required one fails. */
  connect(): Promise<void>;
  /** Run an instruction to a final answer. Rejects with E_BUDGET_*, E_UPSTREAM, E_RUN_FAILED or E_ABORTED. */
  run(input: string, options?: AgentRunOptions): Promise<RunResult>;
  /** The tools the model would be offered (before scope filtering). */
  listTools(): Promise<ToolDescriptor[]>;
  /**
   * The connected servers by name. Each client reconnects by itself when its connection drops (and emits
   * `reconnected` once every subscription was re-sent); calls made meanwhile wait for it.
   */
  readonly clients: ReadonlyMap<string, ManagedMcpClient>;
  /** Observe every run's events; returns the unsubscribe function. */
  on(listener: (event: RunEvent) => void): () => void;
  /** Close every MCP connection (children are stopped). Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** A fresh run id. */
export const newRunId = (): string => `run-${crypto.randomUUID()}`;

/** Create an agent. Nothing is connected until `connect()` or the first `run()`. */
export function createAgent(options: AgentOptions): Agent {
  const logger = options.logger ?? nullLogger;
  const clients = new Map<string, ManagedMcpClient>();
  const listeners = new Set<(event: RunEvent) => void>();
  if (options.onEvent) listeners.add(options.onEvent);
  let connecting: Promise<void> | undefined;
  let closed = false;
  let telemetry: Promise<Telemetry | undefined> | undefined;
  const telemetryReady = () =>
    (telemetry ??= options.telemetry === "env" ? loadTelemetry({ logger }) : Promise.resolve(options.telemetry));

  const connect = (): Promise<void> => {
    if (closed) return Promise.reject(new AgentdError("E_USAGE", "the agent is closed"));
    connecting ??= (async () => {
      const entries = Object.entries(options.mcpServers ?? {}).filter(([, c]) => c.disabled !== true);
      const results = await Promise.allSettled(
        entries.map(async ([name, config]) => {
          const client = await connectManagedServer(name, config, {
            logger,
            ...(options.capabilities ? { capabilities: options.capabilities } : {}),
            ...(options.reconnect ? { reconnect: options.reconnect } : {}),
            ...(options.httpReactivity === false ? { httpReactivity: false } : {}),
          });
          if (closed) {
            await client.close();
            return;
          }
          clients.set(name, client);
        }),
      );
      const failures: Error[] = [];
      results.forEach((r, i) => {
        if (r.status === "fulfilled") return;
        const [name, config] = entries[i] as [string, McpServerConfig];
        if (config.required === false) logger.warn("mcp.unavailable", { server: name, error: (r.reason as Error).message });
        else failures.push(r.reason as Error);
      });
      if (failures.length > 0) {
        await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
        clients.clear();
        connecting = undefined;
        throw failures[0];
      }
    })();
    return connecting;
  };

  const optional = new Set(Object.entries(options.mcpServers ?? {}).flatMap(([name, c]) => (c.required === false ? [name] : [])));
  const toolSet = new McpToolSet(clients, options.tools, { optional, logger });

  const agent: Agent = {
    clients,
    connect,
    async run(input, runOptions = {}) {
      await connect();
      const runId = runOptions.runId ?? newRunId();
      const recorder = (await telemetryReady())?.run({
        runId,
        ...(runOptions.traceContext ? { parent: runOptions.traceContext } : {}),
        ...(runOptions.trigger ? { trigger: runOptions.trigger } : {}),
      });
      const emit = (e: RunEvent) => {
        recorder?.onEvent(e);
        for (const l of listeners) l(e);
        runOptions.onEvent?.(e);
      };
      return runLoop({
        model: options.model,
        tools: toolSet,
        input,
        runId,
        ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
        limits: { ...options.limits, ...runOptions.limits },
        ...(options.prices ? { prices: options.prices } : {}),
        ...(options.scope ? { scope: options.scope } : {}),
        ...(runOptions.outputSchema ? { outputSchema: runOptions.outputSchema } : {}),
        ...(runOptions.maxOutputRetries !== undefined ? { maxOutputRetries: runOptions.maxOutputRetries } : {}),
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        ...(runOptions.stream ? { stream: true } : {}),
        onEvent: emit,
        logger: logger.child({ runId }),
        ...(recorder ? { tracer: recorder } : {}),
      });
    },
    async listTools() {
      await connect();
      return toolSet.list();
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      await connecting?.catch(() => {});
      await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
      clients.clear();
      // Only a backend the agent loaded itself is the agent's to stop; shutting down flushes it first.
      if (options.telemetry === "env") await (await telemetry)?.shutdown().catch(() => {});
    },
    [Symbol.asyncDispose]() {
      return agent.close();
    },
  };
  return agent;
}
