/**
 * agentd's own MCP surface (self-MCP): other agents and operators call it, subscribe to its state, and
 * watch work finish. Served on stdio and on Streamable HTTP(S) with the same surface:
 *
 * - tool `agent.run` — run an instruction (or a served prompt with its arguments) through the agentic loop;
 *   `notifications/progress` per turn and tool call when the caller sent a progress token and server notifications are on;
 * - prompts from the configuration, with completions of their arguments, when configured;
 * - resources `agent://status`, `agent://runs` (the run history, paged and filtered; its subscribers hear of
 *   every run starting and ending) and `agent://runs/{runId}` (a run with its detail), subscribable;
 * - `logging` (server notifications): `notifications/message` mirroring agentd's telemetry at or above the client's level.
 *
 * Every request resolves to a principal (`principal.ts`): runs, their records, status and run-id
 * idempotency are the caller's own; an operator sees the whole agent. Built on the generic McpServer; this
 * file holds the agentd-specific surface only.
 */
import { AgentdError, McpError } from "../wire/errors.ts";
import { ErrorCode } from "../wire/jsonrpc.ts";
import type { CapabilityConfig } from "../mcp/capabilities.ts";
import { McpServer } from "../mcp/server/server.ts";
import type { ServerContext, ServerSession } from "../mcp/server/session.ts";
import type { CallToolResult, LoggingLevel } from "../wire/index.ts";
import { scrubSecrets, type LogLevel, type LogRecord } from "../log.ts";
import { withoutUndefined } from "../_internal/without-undefined.ts";
import type { RunEvent } from "../loop/events.ts";
import type { RunResult } from "../loop/run-loop.ts";
import { type TraceCarrier, traceCarrierFromMeta } from "../loop/trace-context.ts";
import { LOCAL_PRINCIPAL, resolvePrincipal, scopedRunId } from "./principal.ts";
import { RunRegistry, type RunHistoryLimits, type ToolInFlight } from "./run-registry.ts";
import { McpTaskTable } from "./mcp-tasks.ts";
import { registerRunsResource } from "./runs-resource.ts";
import { readRun } from "./shared-run-history.ts";
import type { ServedTaskJournal } from "./served-task-journal.ts";
import type { ServedRunStart, ServedRuns } from "./served-runs.ts";
import { agentRunInput, agentRunSchema, type ConversationRunOptions, conversationOf } from "./agent-run-input.ts";
import { ServedPrompts, type ServedPrompt } from "./served-prompts.ts";
import type { OperatorAsk } from "../mcp/client/elicitation-policies.ts";
import type { AuthorizationAsk } from "../mcp/client/authorization-ask.ts";

/** What the self-MCP needs from an agent: run an instruction. (`Agent` from createAgent satisfies it.) */
export interface SelfRunner {
  run(
    input: string,
    options: ConversationRunOptions & {
      runId?: string;
      signal?: AbortSignal;
      outputSchema?: Record<string, unknown>;
      onEvent?: (e: RunEvent) => void;
      traceContext?: TraceCarrier;
      /** Who answers the run's MCP elicitations under the `operator` policy. */
      askOperator?: OperatorAsk;
      /** Who completes a remote MCP server's authorization the run lacks (`auth-required`). */
      askAuthorization?: AuthorizationAsk;
      /** Keep the conversation so a re-run of the same run id (a takeover, a retry) resumes from it. */
      resumeConversation?: boolean;
    },
  ): Promise<RunResult>;
}

/** Principal scoping for registrations beside the self-MCP's own (the subagent surface). */
export interface SelfAccess {
  /** The owner key of a request's caller (its principal id), or undefined for an operator, who sees everything. */
  ownerOf(authInfo: Parameters<typeof resolvePrincipal>[0]): string | undefined;
  /** The principal id of a request's caller (operators included): what it starts is owned by this. */
  principalIdOf(authInfo: Parameters<typeof resolvePrincipal>[0]): string;
  /** Whether a session may hear of `owner`'s things: its own, or it is an operator's. */
  hears(owner: string | undefined): (session: ServerSession) => boolean;
}

/** Options of {@link createSelfMcpServer}. */
export interface SelfMcpOptions {
  runner: SelfRunner;
  /** `agent.run` with the same run id runs once across replicas sharing this store (served-runs.ts). */
  servedRuns?: ServedRuns;
  /** The switches; `serverNotifications` turns on logging and progress. */
  capabilities?: CapabilityConfig;
  version?: string;
  instructions?: string;
  /**
   * Extra registrations (the supervisor's subagent tools) on the same server, with the principal scoping
   * they must apply: what a request's caller owns, and which sessions may hear of an owner's changes.
   */
  extend?: (server: McpServer, registry: RunRegistry, access: SelfAccess) => void;
  /** The configured triggers' status, shown as `triggers` in `agent://status` (notify changes with `server.notifyResourceUpdated`). */
  triggers?: () => unknown;
  /** Sampling answered per MCP server, shown as `sampling` in `agent://status` (to the same viewers as `triggers`). */
  sampling?: () => unknown;
  /**
   * Principal ids with the operator role (e.g. `local`, `bearer:ops`, `mtls:CN=alice,O=ops`): they see
   * every principal's runs. Credentials configured with the role (operator tokens) need not be listed.
   */
  operators?: string[];
  /** Bounds of the finished-run history (default 100 runs and 16 MiB per principal, 64 MiB in all). */
  runHistory?: RunHistoryLimits;
  /**
   * With `capabilities.tasks` on: each tool's `execution.taskSupport` (default `agent.run` and
   * `subagent.spawn`: `optional`; tools not named: none, i.e. forbidden).
   */
  taskSupport?: Record<string, "optional" | "required" | "forbidden">;
  /** Suggested `pollInterval` of tasks, ms (default 1000). */
  taskPollIntervalMs?: number;
  /** Where served `agent.run` tasks are noted so a restart re-runs them (the checkpoint; off by default). */
  taskJournal?: ServedTaskJournal;
  /**
   * Prompts to serve: declared with `prompts` (and `completions` when an argument has values) only
   * when some are given; `agent.run` then also takes `{ prompt, arguments }`.
   */
  prompts?: Record<string, ServedPrompt>;
}

/** Default `execution.taskSupport` of the self-MCP's tools when tasks are on. */
export const DEFAULT_TASK_SUPPORT: Readonly<Record<string, "optional" | "required" | "forbidden">> = Object.freeze({
  "agent.run": "optional",
  "subagent.spawn": "optional",
});

const MCP_LEVEL: Record<LogLevel, LoggingLevel> = { debug: "debug", info: "info", warn: "warning", error: "error" };

/** The self-MCP server and the hooks its host wires up. */
export interface SelfMcp {
  server: McpServer;
  registry: RunRegistry;
  /** The MCP task store, when tasks are on. */
  tasks?: McpTaskTable;
  /** The served prompts, when prompts were configured: `set` replaces them and notifies `prompts/list_changed`. */
  prompts?: ServedPrompts;
  /** Feed agentd's own telemetry here to mirror it as `notifications/message` (server notifications). */
  mirrorLog(record: LogRecord): void;
}

/** A fresh run id for runs started over MCP. */
const newRunId = () => `run-${crypto.randomUUID()}`;

/** Build the self-MCP server. Connect it to transports with `server.connect(transport)`. */
export function createSelfMcpServer(options: SelfMcpOptions): SelfMcp {
  const registry = new RunRegistry(options.runHistory);
  const operators = new Set(options.operators ?? []);
  const principalOf = (authInfo: Parameters<typeof resolvePrincipal>[0]) => resolvePrincipal(authInfo, operators);
  /** Whether a session may hear of `owner`'s runs: its own, or it is an operator's. */
  const sees = (owner: string) => (s: ServerSession) => {
    const p = principalOf(s.protocol.transport.authInfo);
    return p.role === "operator" || p.id === owner;
  };
  // Tasks (server side): a task store only when switched on; off leaves the surface exactly as before.
  const tasks = options.capabilities?.tasks
    ? new McpTaskTable({
        ownerOf: (ctx) => principalOf(ctx.authInfo).id,
        pollIntervalMs: options.taskPollIntervalMs || undefined,
        // Retaining and re-running go with the journal: together or not at all.
        ...(options.taskJournal
          ? {
              journal: options.taskJournal,
              // An agent.run task is retained with its run id fixed now, so its re-run is the same run.
              retain: (tool, args) => {
                if (tool !== "agent.run") return undefined;
                const runId = typeof args.runId === "string" && args.runId ? args.runId : newRunId();
                return { args: { ...args, runId }, runId };
              },
              rerun: (r, signal) => agentRun(r.args, { signal, meta: {}, authInfo: r.auth, sendProgress: async () => {} }),
            }
          : {}),
      })
    : undefined;
  const server = new McpServer(
    { name: "agentd", version: options.version ?? "0.1.0" },
    {
      // Configured prompts switch prompts and completion on; each is declared only when registered (a spread, so
      // without prompts the given capabilities stand).
      capabilities:
        options.capabilities || options.prompts
          ? { ...options.capabilities, ...(options.prompts ? { prompts: true, completion: true } : {}) }
          : undefined,
      tasks,
      instructions:
        options.instructions ??
        "agentd: call agent.run to run an instruction; read or subscribe to agent://status and agent://runs/{runId} to watch work.",
    },
  );

  const prompts = options.prompts ? new ServedPrompts(server) : undefined;
  prompts?.set(options.prompts ?? {});

  server.tool(
    {
      name: "agent.run",
      title: "Run an instruction",
      description: "Run an instruction through agentd's agentic loop (model + MCP tools) and return the final answer.",
      inputSchema: agentRunSchema(options.prompts !== undefined),
      annotations: { readOnlyHint: false, openWorldHint: true },
    },
    (args, ctx) => agentRun(args, ctx),
  );

  /** `agent.run`: also what a served task retained before a restart re-runs (with no session behind it). */
  async function agentRun(
    args: Record<string, unknown>,
    ctx: Pick<ServerContext, "authInfo" | "signal" | "meta" | "sendProgress">,
  ): Promise<CallToolResult> {
    const input = agentRunInput(args, prompts);
    if ("error" in input) return { content: [{ type: "text", text: input.error }], isError: true };
    const principal = principalOf(ctx.authInfo);
    const owner = principal.id;
    const callerRunId = typeof args.runId === "string" && args.runId !== "";
    const runId = callerRunId ? (args.runId as string) : newRunId();
    const previous = registry.get(runId, owner);
    if (previous?.status === "succeeded")
      return runResultContent(previous.runId, previous.result?.text, previous.result?.output, "already done");
    if (previous?.status === "running")
      return { content: [{ type: "text", text: `run ${runId} is already running; read agent://runs/${runId}` }], isError: true };
    // Never run twice: the result is gone, but the work was done.
    if (!previous && registry.expired(runId, owner))
      return {
        content: [{ type: "text", text: expiredMessage(registry, runId, "it is not run again; use a new runId to run it again") }],
        isError: true,
      };
    // Across replicas: claimed in the store; a replica that ran it (or is running it) answers for it.
    let claim: ServedRunStart | undefined;
    try {
      claim = await options.servedRuns?.begin(scopedRunId(principal, runId), ctx.signal);
    } catch (e) {
      const message = scrubSecrets(e instanceof Error ? e.message : String(e));
      return {
        content: [
          {
            type: "text",
            text: `run ${runId} was not started: the store that keeps served runs once is unavailable (${message}); try again`,
          },
        ],
        isError: true,
      };
    }
    if (claim?.status === "done")
      return claim.answer
        ? runResultContent(runId, claim.answer.text, claim.answer.output, "already done")
        : {
            content: [{ type: "text", text: `run ${runId} was already run by another replica; its answer is no longer in the store` }],
            isError: true,
          };
    if (claim?.status === "running")
      return {
        content: [
          {
            type: "text",
            text: `run ${runId} is running on another replica${claim.holder ? ` (${claim.holder})` : ""}; call again with the same runId for its answer`,
          },
        ],
        isError: true,
      };
    registry.start(runId, input.instruction, owner, { via: "mcp" });
    let step = 0;
    const traceContext = traceCarrierFromMeta(ctx.meta);
    try {
      const result = await options.runner.run(input.instruction, {
        runId: scopedRunId(principal, runId),
        // Another replica took the claim over (this one missed its renewals): stop, it runs there.
        signal: claim?.status === "run" && claim.lost ? AbortSignal.any([ctx.signal, claim.lost]) : ctx.signal,
        // The caller's run id can be sent again (a retry, another replica taking a dead one's run over): the
        // run goes on from its saved conversation (durability.checkpoint.resumeConversations).
        resumeConversation: callerRunId ? true : undefined,
        ...conversationOf(args, owner), // `conversationId`: the caller's own conversation, continued
        traceContext,
        outputSchema:
          args.outputSchema && typeof args.outputSchema === "object" ? (args.outputSchema as Record<string, unknown>) : undefined,
        onEvent: (e) => {
          registry.observe(runId, e, owner);
          const tool = toolInFlight(e);
          if (tool !== undefined) registry.progress(runId, { tool }, owner);
          const message = describeEvent(e);
          if (!message) return;
          if (e.type === "model-response") registry.progress(runId, { turns: e.turn, usage: e.usage }, owner);
          void ctx.sendProgress(++step, undefined, message);
        },
      });
      registry.succeed(
        runId,
        {
          stopReason: result.stopReason,
          usage: result.usage,
          turns: result.turns,
          toolCalls: result.toolCalls,
          text: result.text,
          output: result.output,
        },
        owner,
      );
      await claim
        ?.finish({
          stopReason: result.stopReason,
          text: result.text,
          output: result.output,
        })
        .catch(() => {});
      return runResultContent(runId, result.text, result.output, result.stopReason, result);
    } catch (e) {
      await claim?.finish(undefined).catch(() => {});
      const code = AgentdError.isInstance(e) ? e.code : "E_RUN_FAILED";
      // An upstream's error text can echo a value from the environment (a header): never hand it to a caller.
      const message = scrubSecrets(e instanceof Error ? e.message : String(e));
      const usage = AgentdError.isInstance(e) ? (e.options.data?.usage as RunResult["usage"] | undefined) : undefined;
      registry.fail(runId, { code, message }, usage, owner);
      return { content: [{ type: "text" as const, text: `run ${runId} failed (${code}): ${message}` }], isError: true };
    }
  }

  server.resource(
    {
      uri: "agent://status",
      name: "status",
      title: "agentd status",
      mimeType: "application/json",
      description: "idle or running, current runs, usage so far",
    },
    (uri, ctx) => {
      const p = principalOf(ctx.authInfo);
      const operator = p.role === "operator";
      const status: Record<string, unknown> = { ...registry.status(operator ? undefined : p.id) };
      if (operator) status.principals = registry.principals();
      // The triggers are the agent's own configuration: its local user's and the operators' to see.
      if (options.triggers && (operator || p.id === LOCAL_PRINCIPAL)) status.triggers = options.triggers();
      if (options.sampling && (operator || p.id === LOCAL_PRINCIPAL)) status.sampling = options.sampling();
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(status) }] };
    },
  );
  server.resourceTemplate(
    {
      uriTemplate: "agent://runs/{runId}",
      name: "run",
      title: "A run",
      mimeType: "application/json",
      description: "A run's status, then its result",
    },
    async (uri, vars, ctx) => {
      const runId = String(vars.runId);
      const p = principalOf(ctx.authInfo);
      const own = registry.get(runId, p.id);
      // Held here first; then, with a shared history, the run as another replica wrote it to the store.
      const found = own ? undefined : await readRun(registry, runId, { id: p.id, operator: p.role === "operator" });
      const record = own ?? (found && found.owner !== p.id ? { ...found.record, principal: found.owner } : found?.record);
      // Resource-not-found (-32002) with the URI, as the resources spec shows; "expired" says why.
      if (!record) {
        if (registry.expired(runId, p.id))
          throw new McpError(ErrorCode.ResourceNotFound, expiredMessage(registry, runId, "its record is no longer available"), {
            uri,
            expired: true,
          });
        throw new McpError(ErrorCode.ResourceNotFound, `no run ${runId}`, { uri });
      }
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(record) }] };
    },
  );

  registerRunsResource(server, registry, principalOf, sees);

  registry.onChange((runId, owner) => {
    const to = sees(owner);
    void server.notifyResourceUpdated("agent://status", to);
    if (runId) void server.notifyResourceUpdated(`agent://runs/${runId}`, to);
  });

  options.extend?.(server, registry, {
    ownerOf: (authInfo) => {
      const p = principalOf(authInfo);
      return p.role === "operator" ? undefined : p.id;
    },
    principalIdOf: (authInfo) => principalOf(authInfo).id,
    hears: (owner) => (owner === undefined ? (s) => principalOf(s.protocol.transport.authInfo).role === "operator" : sees(owner)),
  });
  if (tasks) {
    const support = { ...DEFAULT_TASK_SUPPORT, ...withoutUndefined(options.taskSupport) };
    for (const [name, taskSupport] of Object.entries(support)) {
      const entry = server.registry.tools.get(name);
      if (entry) entry.definition = { ...entry.definition, execution: { ...entry.definition.execution, taskSupport } };
    }
  }

  const hearsTelemetry = (s: ServerSession) => {
    const p = principalOf(s.protocol.transport.authInfo);
    return p.role === "operator" || p.id === LOCAL_PRINCIPAL;
  };
  // Sending a notifications/message can itself log (a transport reporting a dropped message); mirroring
  // that record would send again, recursing without end. Records logged while mirroring stay local.
  let mirroring = false;
  return {
    server,
    registry,
    tasks,
    prompts,
    mirrorLog(record) {
      if (mirroring) return;
      mirroring = true;
      try {
        const { level, ...rest } = record;
        // The telemetry is the whole process's, every principal's runs: only the local user and operators hear it.
        void server.log(MCP_LEVEL[level], rest, "agentd", hearsTelemetry);
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
    text,
    output,
    ...(result && { usage: result.usage, turns: result.turns, toolCalls: result.toolCalls, conversationId: result.conversationId }),
  };
  return {
    content: [{ type: "text" as const, text: output !== undefined ? JSON.stringify(output) : (text ?? "") }],
    structuredContent: structured,
  };
}

/** The run's tool in flight as an event changes it (null: none now), or undefined when the event does not. */
function toolInFlight(e: RunEvent): ToolInFlight | null | undefined {
  const name = (x: { name: string; qualifiedName?: string }) => x.qualifiedName ?? x.name;
  if (e.type === "tool-call") return { name: name(e), toolCallId: e.toolCallId };
  if (e.type === "tool-result") return null;
  if (e.type !== "tool-progress") return undefined;
  return {
    name: name(e),
    toolCallId: e.toolCallId,
    progress: e.progress,
    total: e.total,
    message: e.message,
    elapsedMs: e.elapsedMs,
  };
}

/** A one-line progress message for an event, or undefined for events not worth a progress step. */
function describeEvent(e: RunEvent): string | undefined {
  switch (e.type) {
    case "model-response":
      return `turn ${e.turn}: model answered${e.toolCalls ? ` with ${e.toolCalls} tool call(s)` : ""}`;
    case "tool-result":
      return `tool ${e.qualifiedName ?? e.name} ${e.isError ? "failed" : "returned"} (${e.durationMs}ms)`;
    case "tool-progress":
      return `tool ${e.qualifiedName ?? e.name}: ${e.progress}${e.total !== undefined ? `/${e.total}` : ""}${e.message ? ` ${e.message}` : ""}`;
    default:
      return undefined;
  }
}

/** The "expired" answer for a run that left the bounded history. */
function expiredMessage(registry: RunRegistry, runId: string, consequence: string): string {
  const { maxRuns, maxBytes } = registry.limits;
  return `run ${runId} finished and has expired from the run history (each caller's last ${maxRuns} finished runs, up to ${Math.round(maxBytes / 1024 / 1024)} MiB, are kept): ${consequence}`;
}
