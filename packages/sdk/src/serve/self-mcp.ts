/**
 * agentd's own MCP surface (self-MCP): other agents and operators call it, subscribe to its state, and
 * watch work finish. Served on stdio and on Streamable HTTP(S) with the same surface:
 *
 * - tool `agent.run` — run an instruction through the agentic loop; `notifications/progress` per turn and
 *   tool call when the caller sent a progress token and D9 is on;
 * - resources `agent://status` and `agent://runs/{runId}`, subscribable, updated on every change;
 * - `logging` (D9): `notifications/message` mirroring agentd's telemetry at or above the client's level.
 *
 * Built on the generic McpServer; this file holds the agentd-specific surface only.
 */
import { AgentdError } from "../wire/errors.ts";
import type { CapabilityConfig } from "../mcp/capabilities.ts";
import { McpServer } from "../mcp/server.ts";
import type { LoggingLevel } from "../wire/index.ts";
import type { LogLevel, LogRecord } from "../log.ts";
import type { RunEvent } from "../loop/events.ts";
import type { RunResult } from "../loop/run-loop.ts";
import { type TraceCarrier, traceCarrierFromMeta } from "../loop/trace-context.ts";
import { RunRegistry } from "./run-registry.ts";

/** What the self-MCP needs from an agent: run an instruction. (`Agent` from createAgent satisfies it.) */
export interface SelfRunner {
  run(
    input: string,
    options: {
      runId?: string;
      signal?: AbortSignal;
      outputSchema?: Record<string, unknown>;
      onEvent?: (e: RunEvent) => void;
      traceContext?: TraceCarrier;
    },
  ): Promise<RunResult>;
}

/** Options of {@link createSelfMcpServer}. */
export interface SelfMcpOptions {
  runner: SelfRunner;
  /** D-switches; `serverNotifications` (D9) turns on logging and progress. */
  capabilities?: CapabilityConfig;
  version?: string;
  instructions?: string;
  /** Extra registrations (the supervisor's subagent tools) on the same server. */
  extend?: (server: McpServer, registry: RunRegistry) => void;
  /** The configured triggers' status, shown as `triggers` in `agent://status` (notify changes with `server.notifyResourceUpdated`). */
  triggers?: () => unknown;
}

const MCP_LEVEL: Record<LogLevel, LoggingLevel> = { debug: "debug", info: "info", warn: "warning", error: "error" };

/** The self-MCP server and the hooks its host wires up. */
export interface SelfMcp {
  server: McpServer;
  registry: RunRegistry;
  /** Feed agentd's own telemetry here to mirror it as `notifications/message` (D9). */
  mirrorLog(record: LogRecord): void;
}

/** A fresh run id for runs started over MCP. */
const newRunId = () => `run-${crypto.randomUUID()}`;

/** Build the self-MCP server. Connect it to transports with `server.connect(transport)`. */
export function createSelfMcpServer(options: SelfMcpOptions): SelfMcp {
  const registry = new RunRegistry();
  const server = new McpServer(
    { name: "agentd", version: options.version ?? "0.1.0" },
    {
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
      instructions:
        options.instructions ??
        "agentd: call agent.run to run an instruction; read or subscribe to agent://status and agent://runs/{runId} to watch work.",
    },
  );

  server.tool(
    {
      name: "agent.run",
      title: "Run an instruction",
      description: "Run an instruction through agentd's agentic loop (model + MCP tools) and return the final answer.",
      inputSchema: {
        type: "object",
        properties: {
          instruction: { type: "string", description: "What to do" },
          runId: { type: "string", description: "Idempotency id; a finished run with this id is returned, not repeated" },
          outputSchema: { type: "object", description: "JSON Schema the answer must satisfy" },
        },
        required: ["instruction"],
      },
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    async (args, ctx) => {
      const runId = typeof args.runId === "string" && args.runId ? args.runId : newRunId();
      const previous = registry.get(runId);
      if (previous?.status === "succeeded") return runResultContent(previous.runId, previous.result?.text, previous.result?.output, "already done");
      if (previous?.status === "running")
        return { content: [{ type: "text", text: `run ${runId} is already running; read agent://runs/${runId}` }], isError: true };
      registry.start(runId, String(args.instruction));
      let step = 0;
      const traceContext = traceCarrierFromMeta(ctx.meta);
      try {
        const result = await options.runner.run(String(args.instruction), {
          runId,
          signal: ctx.signal,
          ...(traceContext ? { traceContext } : {}),
          ...(args.outputSchema && typeof args.outputSchema === "object" ? { outputSchema: args.outputSchema as Record<string, unknown> } : {}),
          onEvent: (e) => {
            const message = describeEvent(e);
            if (!message) return;
            if (e.type === "model-response") registry.progress(runId, { turns: e.turn, usage: e.usage });
            if (e.type === "tool-result") registry.progress(runId, {});
            void ctx.sendProgress(++step, undefined, message);
          },
        });
        registry.succeed(runId, {
          stopReason: result.stopReason,
          usage: result.usage,
          turns: result.turns,
          toolCalls: result.toolCalls,
          ...(result.text !== undefined ? { text: result.text } : {}),
          ...(result.output !== undefined ? { output: result.output } : {}),
        });
        return runResultContent(runId, result.text, result.output, result.stopReason, result);
      } catch (e) {
        const code = AgentdError.isInstance(e) ? e.code : "E_RUN_FAILED";
        const message = e instanceof Error ? e.message : String(e);
        const usage = AgentdError.isInstance(e) ? (e.options.data?.usage as RunResult["usage"] | undefined) : undefined;
        registry.fail(runId, { code, message }, usage);
        return { content: [{ type: "text", text: `run ${runId} failed (${code}): ${message}` }], isError: true };
      }
    },
  );

  server.resource(
    { uri: "agent://status", name: "status", title: "agentd status", mimeType: "application/json", description: "idle or running, current runs, usage so far" },
    (uri) => {
      const status = options.triggers ? { ...registry.status(), triggers: options.triggers() } : registry.status();
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(status) }] };
    },
  );
  server.resourceTemplate(
    { uriTemplate: "agent://runs/{runId}", name: "run", title: "A run", mimeType: "application/json", description: "A run's status, then its result" },
    (uri, vars) => {
      const record = registry.get(String(vars.runId));
      if (!record) throw new AgentdError("E_USAGE", `no run ${String(vars.runId)}`);
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(record) }] };
    },
  );

  registry.onChange((runId) => {
    void server.notifyResourceUpdated("agent://status");
    if (runId) void server.notifyResourceUpdated(`agent://runs/${runId}`);
  });

  options.extend?.(server, registry);

  // Sending a notifications/message can itself log (a transport reporting a dropped message); mirroring
  // that record would send again, recursing without end. Records logged while mirroring stay local.
  let mirroring = false;
  return {
    server,
    registry,
    mirrorLog(record) {
      if (mirroring) return;
      mirroring = true;
      try {
        const { level, ...rest } = record;
        void server.log(MCP_LEVEL[level], rest, "agentd");
      } finally {
        mirroring = false;
      }
    },
  };
}

function runResultContent(runId: string, text: string | undefined, output: unknown, stopReason: string, result?: RunResult) {
  const structured = {
    runId,
    stopReason,
    ...(text !== undefined ? { text } : {}),
    ...(output !== undefined ? { output } : {}),
    ...(result ? { usage: result.usage, turns: result.turns, toolCalls: result.toolCalls } : {}),
  };
  return {
    content: [{ type: "text" as const, text: output !== undefined ? JSON.stringify(output) : (text ?? "") }],
    structuredContent: structured,
  };
}

/** A one-line progress message for an event, or undefined for events not worth a progress step. */
function describeEvent(e: RunEvent): string | undefined {
  switch (e.type) {
    case "model-response":
      return `turn ${e.turn}: model answered${e.toolCalls ? ` with ${e.toolCalls} tool call(s)` : ""}`;
    case "tool-result":
      return `tool ${e.qualifiedName ?? e.name} ${e.isError ? "failed" : "returned"} (${e.durationMs}ms)`;
    default:
      return undefined;
  }
}
