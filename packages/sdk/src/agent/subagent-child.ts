/**
 * The child side of a subagent (`agentd __subagent`: hidden; started by a parent agent, never by hand).
 * It reads everything from the parent's `start` on fd 3 — model settings, the MCP servers within its
 * scope, limits, depth, run id — takes the API key from its environment only, builds its own model and
 * MCP connections, runs as a Run of origin `subagent` (the same run as every other: its state, cancel,
 * telemetry and trace), reports progress and usage, answers, and cleans up its own subtree
 * (MCP servers, its own subagents) before it exits. SIGTERM, `cancel` and a broken channel all drain it.
 */
import type { AgentdConfig } from "../config/types.generated.ts";
import type { Logger } from "../log.ts";
import type { RunEvent } from "../loop/events.ts";
import type { ToolSet } from "../loop/tools.ts";
import type { ManagedMcpClient } from "../mcp/client/managed/managed-client.ts";
import { serveSubagentChild, type ChildRunContext } from "../supervisor/child-endpoint.ts";
import { openInheritedControlIO } from "../supervisor/control-pipe.ts";
import type { ChildResult, StartParams } from "../supervisor/control-protocol.ts";
import { ProgressMeter } from "../supervisor/progress-meter.ts";
import { ScopedToolSet } from "../supervisor/scoped-tool-set.ts";
import { SubagentToolSet } from "../supervisor/self-tools.ts";
import { AgentdError } from "../wire/errors.ts";
import { connectManagedServer } from "./connections/connect-server.ts";
import { modelFromConfig, type ModelFactory } from "./from-config/from-config.ts";
import { McpToolSet } from "./tools/mcp-tool-set.ts";
import { toolFilters } from "./tools/server-tool-filter.ts";
import { loadTelemetry } from "../telemetry/load-telemetry.ts";
import type { Telemetry } from "../telemetry/types.ts";
import { AgentWaiting } from "./run/run-waiting.ts";
import { ConversationsOf } from "./conversations/agent-conversations.ts";
import { AgentLifecycle } from "./run/agent-lifecycle.ts";
import { createRun, type RunParts } from "./run/run-agent.ts";
import { Runs } from "./run/runs.ts";
import { childApiKey, childSupervisor } from "./from-config/subagents-from-config.ts";

/** What a subagent child needs from its program: how to build models, where telemetry goes. */
export interface SubagentChildOptions {
  /** `createModel` from `@agentd/adapters` (or any factory of the same shape). */
  createModel: ModelFactory;
  logger: Logger;
}

/** The system instructions of a subagent when its parent sends none. */
export const SUBAGENT_INSTRUCTIONS =
  "You are a subagent: another agent delegated the task in the user message to you. Do it with the tools you have, then answer with the result only; your answer goes back to that agent.";

/** The child's user message: the instruction, then the seed as JSON data. */
export function renderSubagentInput(start: Pick<StartParams, "instruction" | "seed">): string {
  if (start.seed === undefined) return start.instruction;
  return `${start.instruction}\n\nSeed data (JSON):\n\`\`\`json\n${JSON.stringify(start.seed, null, 2)}\n\`\`\``;
}

/** Connect the servers the parent passed; a required one that fails fails the run (E_UPSTREAM). */
async function connectAll(start: StartParams, logger: Logger): Promise<Map<string, ManagedMcpClient>> {
  const clients = new Map<string, ManagedMcpClient>();
  const entries = Object.entries(start.mcpServers).filter(([, c]) => c.disabled !== true);
  const results = await Promise.allSettled(
    entries.map(async ([name, config]) => clients.set(name, await connectManagedServer(name, config, { logger, runId: start.runId }))),
  );
  const failed = results.findIndex((r, i) => r.status === "rejected" && (entries[i]?.[1].required ?? true));
  if (failed >= 0) {
    await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
    throw (results[failed] as PromiseRejectedResult).reason;
  }
  return clients;
}

/** Run the work of one `start`: as a {@link Run} of origin `subagent`, made and finished like every other run. */
async function runChild(start: StartParams, ctx: ChildRunContext, options: SubagentChildOptions): Promise<ChildResult> {
  const logger = options.logger.child({ subagent: start.id, depth: start.depth, attempt: start.attempt });
  const model = modelFromConfig({ model: start.model } as AgentdConfig, {
    createModel: options.createModel,
    apiKey: childApiKey(start.model) || undefined,
    logger,
  });
  const supervisor = childSupervisor(start, logger);
  const meter = new ProgressMeter(ctx.progress);
  // OTEL_* is inherited from the parent: the child's run span joins the parent's trace under its tool span.
  const telemetry = await loadTelemetry({ logger });
  let clients = new Map<string, ManagedMcpClient>();
  try {
    clients = await connectAll(start, logger);
    const tools = new ScopedToolSet(
      meter.tap(new McpToolSet(clients, new SubagentToolSet(supervisor), { filters: toolFilters(start.mcpServers) })),
      start.scopes,
    );
    const run = createRun({ model }, childRunParts(start, tools, meter, telemetry, logger));
    const result = await run(renderSubagentInput(start), {
      runId: start.runId,
      origin: { kind: "subagent" },
      traceContext: start.traceContext,
      signal: ctx.signal,
      outputSchema: start.outputSchema,
    });
    return {
      text: result.text,
      output: result.output,
      usage: result.usage,
      turns: result.turns,
      toolCalls: result.toolCalls,
      stopReason: result.stopReason,
    };
  } catch (e) {
    // A failure before the loop ran (an MCP server down) still reports what was used (nothing).
    if (AgentdError.isInstance(e) && !e.options.data?.usage)
      throw new AgentdError(e.code, e.message, { cause: e, data: { ...e.options.data, usage: meter.snapshot().usage } });
    throw e;
  } finally {
    // The subtree goes before the answer: when the parent hears back, nothing of ours is left running.
    await supervisor.shutdown("the subagent is finishing");
    await Promise.all([...clients.values()].map((c) => c.close().catch(() => {})));
    await telemetry?.shutdown().catch(() => {});
  }
}

/**
 * What the child's one run reaches: a table of runs of its own (the child runs one), its servers already
 * connected, the parent's instructions, limits and prices as its settings, the progress meter as its
 * listener, and the telemetry loaded above (the run's span is the parent's tool span's child).
 */
function childRunParts(
  start: StartParams,
  tools: ToolSet,
  meter: ProgressMeter,
  telemetry: Telemetry | undefined,
  logger: Logger,
): RunParts {
  const settings = { instructions: start.instructions ?? SUBAGENT_INSTRUCTIONS, limits: start.limits, prices: start.model.prices };
  return {
    lifecycle: new AgentLifecycle(new Runs(), { release: async () => {}, logger }),
    connect: async () => {},
    toolSet: tools,
    settings: () => settings,
    listeners: new Set([(e: RunEvent) => meter.event(e)]),
    telemetry: async () => telemetry,
    observers: { current: undefined },
    // A child's run continues no conversation: opened on first use, so none is.
    conversations: new ConversationsOf(undefined),
    // A child's run never suspends (only direct, served and triggered runs are saved waiting): never opened.
    waiting: new AgentWaiting(undefined),
    logger,
  };
}

/**
 * A subagent child's whole life: serve one `start` from the parent on fd 3 (the control channel), run it,
 * answer, and clean up. Resolves to the exit code for the process (0 answered, 1 not, 2 no channel).
 */
export async function runSubagentChild(options: SubagentChildOptions): Promise<number> {
  let io: ReturnType<typeof openInheritedControlIO>;
  try {
    io = openInheritedControlIO();
  } catch (e) {
    process.stderr.write(`agentd: ${(e as Error).message}\n`);
    return 2;
  }
  const interrupted = new AbortController();
  const onSignal = () => interrupted.abort();
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    const end = await serveSubagentChild(io, (start, ctx) => runChild(start, ctx, options), { signal: interrupted.signal });
    if (!end.answered && end.reason) options.logger.warn("subagent.unanswered", { reason: end.reason });
    return end.answered ? 0 : 1;
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}
