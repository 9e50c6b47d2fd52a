/**
 * The supervisor: starts subagents (child processes of the same program), keeps their handles, restarts
 * the ones that crash (bounded, with backoff, from the retained payload), enforces limits from outside,
 * and stops them — one child, or the whole subtree — with cancel, then SIGTERM, then SIGKILL.
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
import type { McpServerConfig, ModelConfig } from "../config/types.generated.ts";
import { nullLogger, type Logger } from "../log.ts";
import type { RunLimits } from "../loop/budget.ts";
import { addUsage, emptyUsage, type Usage } from "../model/language-model.ts";
import type { RunScope } from "../loop/scope.ts";
import { AgentdError } from "../wire/errors.ts";
import { ChildAttempt, within, type AttemptEnd, type ChildCommand } from "./child-attempt.ts";
import { CONTROL_PROTOCOL_VERSION, type StartParams } from "./control-protocol.ts";
import { HandleTable, isTerminal, newHandleId, type HandleRecord, type HandleSnapshot, type SubagentFailure } from "./handle-table.ts";
import { restartDelay, deadlineTrip, remainingLimits, tokensOf, tokenTrip, type BackoffOptions, type LimitTrip } from "./restart-policy.ts";
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

/** How long past its deadline a child may run before the parent stops it (its own loop trips first). */
const DEADLINE_SLACK_MS = 2_000;

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

interface Live {
  attempt?: ChildAttempt;
  cancel?: string;
  trip?: LimitTrip;
  wake?: () => void;
  driven: Promise<void>;
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

  constructor(private readonly options: SupervisorOptions) {
    this.depth = options.depth ?? 0;
    this.maxDepth = options.maxDepth ?? SUPERVISOR_DEFAULTS.maxDepth;
    this.maxChildren = options.maxChildren ?? SUPERVISOR_DEFAULTS.maxChildren;
    this.maxRestarts = options.maxRestarts ?? SUPERVISOR_DEFAULTS.maxRestarts;
    this.graceMs = options.graceMs ?? SUPERVISOR_DEFAULTS.graceMs;
    this.logger = (options.logger ?? nullLogger).child({ component: "supervisor", depth: this.depth });
    this.command = options.command ?? subagentCommand();
    this.table = new HandleTable({ ttlMs: options.ttlMs });
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
    live.driven = this.drive(id, record, live).finally(() => this.live.delete(id));
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
      live.driven = this.drive(r.id, record, live, { usage: r.usage, turns: r.turns, toolCalls: r.toolCalls }).finally(() =>
        this.live.delete(r.id),
      );
      this.logger.info("subagent.respawn", { id: r.id, runId: r.payload.runId, usage: r.usage });
      return { id: r.id, action: "respawned" as const };
    });
  }

  /** Run attempts until the child answers, fails, is cancelled, or crashes past the restart bound. */
  private async drive(
    id: string,
    record: HandleRecord,
    live: Live,
    spent?: { usage: Usage; turns: number; toolCalls: number },
  ): Promise<void> {
    const payload = record.payload;
    let used = spent ?? { usage: emptyUsage(), turns: 0, toolCalls: 0 };
    const trip = (t: LimitTrip) => {
      if (live.trip || live.cancel) return;
      live.trip = t;
      live.wake?.();
      void live.attempt?.stop(t.message, this.graceMs);
    };
    // setLongTimeout: a deadline weeks away ("30d") must not overflow setTimeout and trip at once.
    const cancelDeadline =
      payload.deadlineAt === undefined
        ? undefined
        : setLongTimeout(() => trip(deadlineTrip()), Math.max(0, payload.deadlineAt - Date.now()) + DEADLINE_SLACK_MS);
    const fail = (f: SubagentFailure) => {
      this.table.fail(id, f, used);
      this.logger.info("subagent.end", {
        id,
        status: f.reason === "cancelled" ? "cancelled" : "failed",
        reason: f.reason,
        code: f.code,
        usage: used.usage,
      });
    };
    const stopped = (): boolean => {
      if (live.cancel) fail({ reason: "cancelled", code: "E_ABORTED", message: live.cancel });
      else if (live.trip)
        fail({ reason: "limit-exceeded", code: live.trip.code, message: live.trip.message, stopReason: live.trip.stopReason });
      else return false;
      return true;
    };
    try {
      for (let attempt = 1; ; attempt++) {
        if (stopped()) return;
        const left = remainingLimits(payload, used);
        if ("trip" in left)
          return fail({ reason: "limit-exceeded", code: left.trip.code, message: left.trip.message, stopReason: left.trip.stopReason });
        this.table.update(id, { attempts: attempt, statusMessage: attempt === 1 ? "running" : `running (restart ${attempt - 1})` });
        const before = used;
        const child = new ChildAttempt(
          this.command,
          this.startParams(id, payload, attempt, left.limits),
          (p) => {
            const usage = addUsage(before.usage, p.usage);
            this.table.update(id, { usage, turns: before.turns + p.turns, toolCalls: before.toolCalls + p.toolCalls });
            if (payload.limits.maxTokens !== undefined && tokensOf(usage) > payload.limits.maxTokens)
              trip(tokenTrip(tokensOf(usage), payload.limits.maxTokens));
          },
          this.logger,
        );
        live.attempt = child;
        this.track(child);
        // A cancel or trip that arrived while the process was being started.
        if (live.cancel || live.trip) void child.stop(live.cancel ?? live.trip?.message ?? "stopped", this.graceMs);
        const end = await child.ended;
        used = accumulate(before, end, child.lastProgress);
        if (end.kind === "result") {
          this.table.complete(
            id,
            {
              text: end.result.text,
              output: end.result.output,
              stopReason: end.result.stopReason,
            },
            used,
          );
          this.logger.info("subagent.end", { id, status: "completed", usage: used.usage, attempts: attempt });
          return;
        }
        if (end.kind === "error") {
          const budget = end.data.code.startsWith("E_BUDGET_");
          if (live.trip || budget)
            return fail({
              reason: "limit-exceeded",
              code: budget ? end.data.code : (live.trip as LimitTrip).code,
              message: end.message,
              stopReason: (end.data.stopReason ?? live.trip?.stopReason) || undefined,
            });
          if (live.cancel) return fail({ reason: "cancelled", code: "E_ABORTED", message: live.cancel });
          return fail({ reason: "failed", code: end.data.code, message: end.message, stopReason: end.data.stopReason || undefined });
        }
        await child.exited;
        if (stopped()) return;
        this.logger.warn("subagent.crash", { id, attempt, reason: end.reason });
        if (attempt > this.maxRestarts)
          return fail({
            reason: "crashed",
            code: "E_SUPERVISOR",
            message: `the subagent crashed ${attempt} time(s) (${this.maxRestarts} restart(s) allowed); last: ${end.reason}`,
          });
        const delayMs = restartDelay(attempt, this.options.backoff);
        this.logger.info("subagent.restart", { id, attempt: attempt + 1, delayMs, runId: payload.runId });
        this.table.update(id, { statusMessage: `crashed (${end.reason}); restarting in ${delayMs} ms` });
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delayMs);
          live.wake = () => (clearTimeout(t), resolve());
        });
        live.wake = undefined;
      }
    } catch (e) {
      // Something of ours broke (the child could not even be spawned): a failure, never an unhandled rejection.
      fail({
        reason: "failed",
        code: "E_SUPERVISOR",
        message: `the supervisor could not run the subagent: ${e instanceof Error ? e.message : String(e)}`,
      });
    } finally {
      cancelDeadline?.();
    }
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

/** Add one attempt's usage (its answer's, else its last progress) to the totals. */
function accumulate(
  before: { usage: Usage; turns: number; toolCalls: number },
  end: AttemptEnd,
  last: { usage: Usage; turns: number; toolCalls: number } | undefined,
): { usage: Usage; turns: number; toolCalls: number } {
  const got =
    end.kind === "result"
      ? end.result
      : end.kind === "error" && end.data.usage
        ? { usage: end.data.usage, turns: end.data.turns ?? last?.turns ?? 0, toolCalls: last?.toolCalls ?? 0 }
        : last;
  if (!got) return before;
  return { usage: addUsage(before.usage, got.usage), turns: before.turns + got.turns, toolCalls: before.toolCalls + (got.toolCalls ?? 0) };
}
