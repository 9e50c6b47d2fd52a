import type { CapabilityConfig } from "../mcp/capabilities.ts";
import { McpServer } from "../mcp/server/server.ts";
import type { ServerSession } from "../mcp/server/session.ts";
import type { LoggingLevel } from "../wire/index.ts";
import type { LogLevel, LogRecord } from "../log.ts";
import { withoutUndefined } from "../_internal/without-undefined.ts";
import type { RunEvent } from "../loop/events.ts";
import type { RunResult } from "../loop/run-loop.ts";
import type { ModelPrices, RunLimits } from "../loop/budget.ts";
import { runIdOr } from "../loop/run-id.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";
import { LOCAL_PRINCIPAL, resolvePrincipal } from "./principal.ts";
import { RunRegistry, type RunHistoryLimits } from "./run-registry.ts";
import { McpTaskTable } from "./mcp-tasks.ts";
import { registerConversationResources, type ServedConversations } from "./served-conversations.ts";
import { registerRunsResource } from "./runs-resource.ts";
import type { ServedTaskJournal } from "./served-task-journal.ts";
import type { ServedRuns } from "./served-runs.ts";
import { agentRunSchema } from "./agent-run-input.ts";
import { agentRunTool } from "./agent-run-tool.ts";
import { registerStateResources } from "./state-resources.ts";
import { ServedPrompts, type ServedPrompt } from "./served-prompts.ts";
import type { OperatorAsk } from "../mcp/client/elicitation-policies.ts";
import type { AuthorizationAsk } from "../mcp/client/authorization-ask.ts";
import type { ApprovalChannel, ApprovalRequest } from "../loop/approvals/approval-types.ts";
import { registerApprovals, type ServedApprovals } from "./approvals/served-approvals.ts";

/** What the served agent needs from an agent: run an instruction. (`Agent` from createAgent satisfies it.) */
export interface ServedRunner {
  run(
    input: string,
    options: {
      runId?: string;
      signal?: AbortSignal;
      outputSchema?: Record<string, unknown>;
      onEvent?: (e: RunEvent) => void;
      /** Overrides the agent's limits for this run (a run started from the console with its own budgets). */
      limits?: RunLimits;
      traceContext?: TraceCarrier;
      /** Who answers the run's MCP elicitations under the `operator` policy. */
      askOperator?: OperatorAsk;
      /** Who decides the run's tool calls that wait for approval (the agent's desk, its caller). */
      askApproval?: ApprovalChannel["ask"];
      /** The caller asked about each question its run posts as it suspends (`approvals.askCaller`). */
      askCaller?: (request: ApprovalRequest) => void;
      /** Who completes a remote MCP server's authorization the run lacks (`auth-required`). */
      askAuthorization?: AuthorizationAsk;
      /** Keep the conversation so a re-run of the same run id (a takeover, a retry) resumes from it. */
      resumeConversation?: boolean;
      /** Which served surface started it. */
      origin?: { kind: "mcp" } | { kind: "a2a" };
      /** The caller's principal id. */
      principal?: string;
      /** The caller's conversation this run continues (`agent.run`'s `conversationId`; docs/conversations.md). */
      conversation?: string;
    },
  ): Promise<RunResult>;
}

/** Principal scoping for registrations beside the served agent's own (the subagent surface). */
export interface ServedAccess {
  /** The owner key of a request's caller (its principal id), or undefined for an operator, who sees everything. */
  ownerOf(authInfo: Parameters<typeof resolvePrincipal>[0]): string | undefined;
  /** The principal id of a request's caller (operators included): what it starts is owned by this. */
  principalIdOf(authInfo: Parameters<typeof resolvePrincipal>[0]): string;
  /** Whether a session may hear of `owner`'s things: its own, or it is an operator's. */
  hears(owner: string | undefined): (session: ServerSession) => boolean;
}

/** Options of {@link createServedMcp}. */
export interface ServedMcpOptions {
  runner: ServedRunner;
  /** `agent.run` with the same run id runs once across replicas sharing this store (served-runs.ts). */
  servedRuns?: ServedRuns;
  /** The agent's conversations, served to their owners as `agent://conversations` (served-conversations.ts). */
  conversations?: ServedConversations;
  /** The switches; `serverNotifications` turns on logging and progress. */
  capabilities?: CapabilityConfig;
  version?: string;
  instructions?: string;
  /**
   * Extra registrations (the supervisor's subagent tools) on the same server, with the principal scoping
   * they must apply: what a request's caller owns, and which sessions may hear of an owner's changes.
   */
  extend?: (server: McpServer, registry: RunRegistry, access: ServedAccess) => void;
  /** The configured triggers' status, shown as `triggers` in `agent://status` (notify changes with `server.notifyResourceUpdated`). */
  triggers?: () => unknown;
  /** Sampling answered per MCP server, shown as `sampling` in `agent://status` (to the same viewers as `triggers`). */
  sampling?: () => unknown;
  /**
   * The model prices in force (`model.prices`), shown as `prices` in `agent://status`: a reader can tell "no
   * priced run has ended yet" (`prices` without `costUsd`) from "no prices configured" (neither).
   */
  prices?: () => ModelPrices | undefined;
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
  /**
   * The agent's approval desk: served runs' questions wait there, listed as `agent://approvals` and decided
   * with `agent.decide`; `askCaller` asks a served caller that declared elicitation about its own run's questions.
   */
  approvals?: ServedApprovals;
}

/** Default `execution.taskSupport` of the served agent's tools when tasks are on. */
export const DEFAULT_TASK_SUPPORT: Readonly<Record<string, "optional" | "required" | "forbidden">> = Object.freeze({
  "agent.run": "optional",
  "subagent.spawn": "optional",
});

const MCP_LEVEL: Record<LogLevel, LoggingLevel> = { debug: "debug", info: "info", warn: "warning", error: "error" };

/** The served agent's MCP server and the hooks the served agent wires up. */
export interface ServedMcp {
  server: McpServer;
  registry: RunRegistry;
  /** The MCP task store, when tasks are on. */
  tasks?: McpTaskTable;
  /** The served prompts, when prompts were configured: `set` replaces them and notifies `prompts/list_changed`. */
  prompts?: ServedPrompts;
  /** Feed agentd's own telemetry here to mirror it as `notifications/message` (server notifications). */
  mirrorLog(record: LogRecord): void;
}

/** A fresh run id (the console's start names one before it runs): the one minting function, under its old name. */
export { mintRunId as newRunId } from "../loop/run-id.ts";
export { toolInFlight } from "./agent-run-tool.ts";

/** Build the served agent's MCP server. Connect it to transports with `server.connect(transport)`. */
export function createServedMcp(options: ServedMcpOptions): ServedMcp {
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
                const runId = runIdOr(typeof args.runId === "string" ? args.runId : undefined);
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
  const agentRun = agentRunTool({
    runner: options.runner,
    servedRuns: options.servedRuns,
    registry,
    prompts,
    principalOf,
    approvals: options.approvals,
  });

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

  registerStateResources(server, registry, principalOf, options);
  registerRunsResource(server, registry, principalOf, sees);
  if (options.conversations) registerConversationResources(server, options.conversations, registry, principalOf);
  if (options.approvals) registerApprovals(server, options.approvals.desk, principalOf);

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
