/**
 * The supervisor: starts subagents (child processes of the same program), keeps their handles, restarts
 * the ones that crash (bounded, with backoff, from the retained payload), enforces limits from outside,
 * and stops them — one child, or the whole subtree — with cancel, then SIGTERM, then SIGKILL. A handle's
 * run across its attempts (limits, restarts, its end) is child-run.ts.
 *
 * ```ts
 * const sup = new Supervisor({
 *   model: { intelligence: "http://127.0.0.1:11434/v1", dialect: "openai", name: "qwen3" },
 *   command: { ...subagentCommand("/path/to/agentd/src/main.ts"), env: { AGENT_API_KEY: key } },
 * });
 * const done = await sup.run({ instruction: "Summarise the inbox", limits: { maxTokens: 20_000 } });
 * const { id } = sup.start({ instruction: "Watch the queue" });   // async: a handle at once
 * const record = await sup.wait(id);
 * await sup.shutdown();
 * ```
 */
import { selfCommand } from "../_internal/self-command.ts";
import { setLongTimeout } from "../_internal/timer.ts";
import type { McpServerConfig, ModelConfig } from "../config/types.ts";
import { nullLogger, type Logger } from "../log.ts";
import type { RunLimits } from "../loop/budget.ts";
import type { RunScope } from "../loop/scope.ts";
import { AgentdError } from "../wire/errors.ts";
import { type ChildAttempt, within, type ChildCommand } from "./child-attempt.ts";
import { ChildRun, type ChildRunHost, type Live } from "./child-run.ts";
import { CONTROL_PROTOCOL_VERSION, type StartParams } from "./control-protocol.ts";
import { HandleTable, isTerminal, newHandleId, type HandleRecord, type HandleSnapshot } from "./handle-table.ts";
import type { BackoffOptions } from "./restart-policy.ts";
import { buildSpawnPayload, serversInScope, type SpawnRequest } from "./spawn-request.ts";
import type { TraceCarrier } from "../loop/trace-context.ts";

/** The hidden CLI entry a child runs (`agentd __subagent`). */
export const SUBAGENT_ENTRY = "__subagent";

/**
 * The command that starts a child: this program again (`selfCommand()`: the compiled binary, or the
 * runtime + entry script) with the hidden `__subagent` entry. An SDK host names the agentd CLI entry.
 */
export function subagentCommand(entry?: string): ChildCommand {
  const self = selfCommand(entry);
  return { command: self.command, args: [...self.args, SUBAGENT_ENTRY] };
}

/** Defaults of the configurable limits. */
export const SUPERVISOR_DEFAULTS = { maxDepth: 2, maxChildren: 4, maxRestarts: 2, graceMs: 8_000 } as const;

/** Options of a {@link Supervisor}. */
export interface SupervisorOptions {
  /** Model settings handed to children. Never the key: put it in `command.env` (`AGENT_API_KEY`). */
  model: ModelConfig;
  /** The parent's MCP servers; each child gets those its scope can reach and connects them itself. */
  mcpServers?: Record<string, McpServerConfig>;
  /** How to start a child. Default: this program again (`selfCommand()`) with the `__subagent` entry. */
  command?: ChildCommand;
  /** System instructions of the children. */
  instructions?: string;
  /** This agent's scope chain: children can only narrow it. */
  scopes?: RunScope[];
  /** This agent's limits: the ceiling of every child's. */
  limits?: RunLimits;
  /** This agent's depth (the root is 0). */
  depth?: number;
  /** Deepest child allowed (default 2). */
  maxDepth?: number;
  /** Most live children at once (default 4). */
  maxChildren?: number;
  /** Restarts of a crashing child before it is failed (default 2). */
  maxRestarts?: number;
  backoff?: BackoffOptions;
  /** Stop grace: cancel, SIGTERM at half, SIGKILL at the end (ms, default 8000). */
  graceMs?: number;
  /** How long finished handles are kept (ms, default 1 h; null: forever). */
  ttlMs?: number | null;
  logger?: Logger;
}

/** Options of one spawn. */
export interface SpawnOptions {
  /** The parent run the child is billed to. Also the base of the child's run id. */
  owner?: string;
  /** The parent's span that spawns the child (W3C trace context), passed on so the traces join. */
  traceContext?: TraceCarrier;
}

/** Supervises this agent's children. */
export class Supervisor {
  readonly table: HandleTable;
  readonly depth: number;
  readonly maxDepth: number;
  readonly maxChildren: number;
  readonly maxRestarts: number;
  readonly graceMs: number;
  private readonly logger: Logger;
  private readonly command: ChildCommand;
  private readonly live = new Map<string, Live>();
  private readonly processes = new Set<ChildAttempt>();
  private closing = false;
  /** What each handle's {@link ChildRun} reaches of this supervisor. */
  private readonly runHost: ChildRunHost;

  constructor(private readonly options: SupervisorOptions) {
    this.depth = options.depth ?? 0;
    this.maxDepth = options.maxDepth ?? SUPERVISOR_DEFAULTS.maxDepth;
    this.maxChildren = options.maxChildren ?? SUPERVISOR_DEFAULTS.maxChildren;
    this.maxRestarts = options.maxRestarts ?? SUPERVISOR_DEFAULTS.maxRestarts;
    this.graceMs = options.graceMs ?? SUPERVISOR_DEFAULTS.graceMs;
    this.logger = (options.logger ?? nullLogger).child({ component: "supervisor", depth: this.depth });
    this.command = options.command ?? subagentCommand();
    this.table = new HandleTable({ ttlMs: options.ttlMs });
    this.runHost = {
      table: this.table,
      logger: this.logger,
      command: this.command,
      graceMs: this.graceMs,
      maxRestarts: this.maxRestarts,
      backoff: options.backoff,
      startParams: (id, payload, attempt, limits) => this.startParams(id, payload, attempt, limits),
      track: (child) => this.track(child),
    };
  }

  /** Whether this agent may spawn at all (its children would not be past the maximum depth). */
  get canSpawn(): boolean {
    return this.depth + 1 <= this.maxDepth;
  }

  /**
   * Start a child and return its handle at once. Throws `E_SUPERVISOR` (a clear line for the model) when
   * the request is invalid, the depth or the number of live children would pass the maximum, or the
   * supervisor is shutting down.
   */
  start(request: SpawnRequest | Record<string, unknown>, options: SpawnOptions = {}): HandleRecord {
    const refuse = (message: string) => {
      this.logger.warn("subagent.refused", { reason: message });
      return new AgentdError("E_SUPERVISOR", message);
    };
    if (this.closing) throw refuse("subagents cannot be started: the agent is shutting down");
    if (!this.canSpawn)
      throw refuse(
        `subagent refused: the maximum depth is ${this.maxDepth} and this agent is at depth ${this.depth}; do the task yourself`,
      );
    if (this.table.live >= this.maxChildren)
      throw refuse(
        `subagent refused: ${this.table.live} of at most ${this.maxChildren} subagents are still running; wait for one (subagent.wait) or cancel one (subagent.cancel) first`,
      );
    const id = newHandleId();
    const payload = buildSpawnPayload(
      request,
      { scopes: this.options.scopes ?? [], limits: this.options.limits ?? {}, depth: this.depth + 1 },
      { runId: `${options.owner ?? "run"}.${id}` },
    );
    if (options.traceContext) payload.traceContext = options.traceContext;
    const record = this.table.create(payload, { id, owner: options.owner });
    const live: Live = { driven: Promise.resolve() };
    this.live.set(id, live);
    live.driven = new ChildRun(this.runHost, id, record, live).run().finally(() => this.live.delete(id));
    this.logger.info("subagent.spawn", { id, runId: payload.runId, childDepth: payload.depth });
    return record;
  }

  /** Start a child and wait for its end. An abort of `signal` cancels the child (its subtree too). */
  async run(request: SpawnRequest | Record<string, unknown>, options: SpawnOptions & { signal?: AbortSignal } = {}): Promise<HandleRecord> {
    const { id } = this.start(request, options);
    const onAbort = () => void this.cancel(id, "the caller stopped waiting");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return (await this.table.watch(id)) as HandleRecord;
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Wait until a handle is terminal, or `timeoutMs` passes (then the working record). Undefined if unknown. */
  async wait(id: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<HandleRecord | undefined> {
    const known = this.table.get(id);
    if (!known || isTerminal(known.status)) return known;
    const timeout = new AbortController();
    const cancelTimer = options.timeoutMs !== undefined ? setLongTimeout(() => timeout.abort(), options.timeoutMs) : undefined;
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    try {
      return await this.table.watch(id, signal);
    } catch (e) {
      if (timeout.signal.aborted && !options.signal?.aborted) return this.table.get(id);
      throw e;
    } finally {
      cancelTimer?.();
    }
  }

  /** A handle (copy), or undefined. */
  get(id: string): HandleRecord | undefined {
    return this.table.get(id);
  }

  /** All handles, optionally of one owner. */
  list(filter: { owner?: string } = {}): HandleRecord[] {
    return this.table.list(filter);
  }

  /** Cancel a child and its subtree; resolves with the final record once its process is gone. */
  async cancel(id: string, reason = "cancelled by the parent"): Promise<HandleRecord | undefined> {
    const live = this.live.get(id);
    if (!live) return this.table.get(id);
    live.cancel ??= reason;
    live.wake?.();
    const attempt = live.attempt;
    await Promise.all([live.driven, attempt ? attempt.stop(reason, this.graceMs) : undefined]);
    return this.table.get(id);
  }

  /** Stop every child (cancel, SIGTERM, SIGKILL within the grace) and refuse new spawns. */
  async shutdown(reason = "the parent is shutting down"): Promise<void> {
    this.closing = true;
    await Promise.all([...this.live.keys()].map((id) => this.cancel(id, reason)));
    await Promise.all([...this.processes].map((p) => p.exited));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  /** PIDs of child processes still running (for diagnostics and tests). */
  pids(): number[] {
    return [...this.processes].filter((p) => !p.hasExited && p.pid !== undefined).map((p) => p.pid as number);
  }

  /** Handles and payloads as JSON (for the checkpoint): never processes, pipes or model context. */
  snapshot(filter: { liveOnly?: boolean } = {}): HandleSnapshot {
    return this.table.snapshot(filter);
  }

  /**
   * Put a checkpoint's handles back after a restart: a terminal one is kept as it was (its result stays
   * readable); a working one — its process died with the old agentd — is started again from its retained
   * payload, under the same id and run id, with the usage it had already spent counted against its
   * limits. A handle whose id is already known is left alone. Resolves with what was done per handle.
   */
  restore(records: readonly HandleRecord[]): Array<{ id: string; action: "kept" | "respawned" | "skipped" }> {
    return records.map((r) => {
      if (this.table.get(r.id)) return { id: r.id, action: "skipped" as const };
      if (isTerminal(r.status)) {
        this.table.restore(r);
        return { id: r.id, action: "kept" as const };
      }
      const record = this.table.restore({ ...r, statusMessage: "resuming after a restart" });
      const live: Live = { driven: Promise.resolve() };
      this.live.set(r.id, live);
      const spent = { usage: r.usage, turns: r.turns, toolCalls: r.toolCalls };
      live.driven = new ChildRun(this.runHost, r.id, record, live, spent).run().finally(() => this.live.delete(r.id));
      this.logger.info("subagent.respawn", { id: r.id, runId: r.payload.runId, usage: r.usage });
      return { id: r.id, action: "respawned" as const };
    });
  }

  private startParams(id: string, payload: HandleRecord["payload"], attempt: number, limits: RunLimits): StartParams {
    const { model, mcpServers = {}, instructions } = this.options;
    return {
      protocol: CONTROL_PROTOCOL_VERSION,
      id,
      runId: payload.runId,
      attempt,
      depth: payload.depth,
      instruction: payload.instruction,
      seed: payload.seed,
      scopes: payload.scopes,
      limits,
      model: payload.model ? { ...model, name: payload.model.name } : model,
      mcpServers: serversInScope(mcpServers, payload.scopes),
      instructions,
      outputSchema: payload.outputSchema,
      subagents: {
        maxDepth: this.maxDepth,
        maxChildren: this.maxChildren,
        maxRestarts: this.maxRestarts,
        graceMs: Math.max(500, Math.floor(this.graceMs / 2)),
      },
      traceContext: payload.traceContext,
    };
  }

  /** Keep a process until it exits; one that answered but lingers is stopped after the grace. */
  private track(child: ChildAttempt): void {
    this.processes.add(child);
    void (async () => {
      const end = await child.ended;
      if (end.kind !== "crash") {
        if (!(await within(child.exited, this.graceMs))) await child.stop("answered but did not exit", this.graceMs);
      }
      await child.exited;
      child.release();
      this.processes.delete(child);
    })();
  }
}
