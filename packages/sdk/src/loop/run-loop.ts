/**
 * The agentic loop: model ↔ tools until a final answer or a budget trips.
 *
 * Budgets are hard and fixed at the start (turns, tokens, wall-clock deadline, cost); a trip rejects
 * with `E_BUDGET_*` and `data: { usage, turns, runId, stopReason }`. Tool failures are observations
 * for the model, never crashes. Tool output is untrusted: fenced as data, and nothing in it can change
 * the instructions, the budgets or the scope, all of which live outside the conversation.
 */
import type { Logger } from "../log.ts";
import { AgentdError } from "../wire/errors.ts";
import { Budget, checkLimits, type ModelPrices, type RunLimits, type StopReason, type Trip } from "./budget.ts";
import { createEmitter, type Emit, type RunEvent, type ToolMode } from "./events.ts";
import { runJsonActionLoop } from "./json-action-mode.ts";
import type { LanguageModel, ModelMessage, ModelToolDefinition, Usage } from "../model/language-model.ts";
import { runNativeLoop } from "./native-tool-loop.ts";
import { RunContext, type RunContextInit } from "./run-context.ts";
import type { RunContinuation, RunSuspension } from "./run-suspension.ts";
import { StepInFlight } from "./step-in-flight.ts";
import { createRunSignal, raceAbort, type RunSignal } from "./run-signal.ts";
import { compileScope, type RunScope } from "./scope.ts";
import { DEFAULT_MAX_OUTPUT_RETRIES } from "./structured-output.ts";
import { ApprovalGate, needsGate } from "./approvals/approval-gate.ts";
import type { ApprovalDecision, ApprovalRequest, RunApprovals } from "./approvals/approval-types.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { createToolNameMap } from "./tool-names.ts";
import type { RunTracer } from "./trace-context.ts";
import type { ToolDescriptor, ToolSet } from "./tools.ts";

/** Options of one run. */
export interface RunLoopOptions {
  model: LanguageModel;
  tools: ToolSet;
  /** The system instructions (trusted). */
  instructions?: string;
  /** The user's request (trusted). */
  input: string;
  limits?: RunLimits;
  /** Needed for `limits.maxCostUsd`. */
  prices?: ModelPrices;
  scope?: RunScope;
  /** JSON Schema the final answer must validate against; the parsed value is `RunResult.output`. */
  outputSchema?: Record<string, unknown>;
  /** Re-asks after a final answer that does not match `outputSchema`. Default 2. */
  maxOutputRetries?: number;
  /** Stable idempotency id, sent with every tool call. */
  runId: string;
  signal?: AbortSignal;
  onEvent?: (e: RunEvent) => void;
  /** Use `model.stream` and emit `text-delta` (and `reasoning-delta`) events. */
  stream?: boolean;
  /**
   * Awaited before each model request, each part of a streamed response and each batch of tool calls:
   * a consumer of the events that is behind returns a promise and the run waits for it (the deadline
   * still runs). Events emitted between two of those points are not held (the turn's end, a batch of
   * tool calls starting and ending, a budget warning).
   */
  backpressure?: () => Promise<void> | void;
  logger?: Logger;
  /** Names the span of each model request and tool call, for W3C trace context propagation. */
  tracer?: RunTracer;
  /**
   * The conversation of an earlier attempt of this run (everything after the system prompt, as
   * `onTurn` gave it): the run goes on from there — the model sees the earlier turns, their tool calls
   * are not made again. Used only when it starts with this run's `input` (native tool calling).
   */
  resume?: ModelMessage[];
  /** Told the conversation (after the system prompt) each time a turn's tool results are in (native tool calling). */
  onTurn?: (messages: readonly ModelMessage[]) => void;
  /**
   * Earlier exchanges of a conversation this run continues (user, assistant and tool messages, no system
   * prompt): sent before `input`, so the model sees them. Not used when `resume` is.
   */
  history?: readonly ModelMessage[];
  /**
   * Told the conversation (after the system prompt, `history` included) after each turn whose tool results
   * are in and once more with the final answer — what a continued conversation saves.
   */
  onMessages?: (messages: readonly ModelMessage[]) => void;
  /**
   * Which calls wait for a person's decision and who is asked (loop/approvals/). Without rules, and without a
   * tool whose `needsApproval` asks, every call is made as it comes; a call that needs a decision with no
   * channel to ask is denied. With `approvals.suspend` (native tool calling) such a call makes the run stop
   * waiting instead: see {@link RunLoopOptions.onSuspend}.
   */
  approvals?: RunApprovals;
  /**
   * Usage the run spent before the loop (a continued conversation's summary request): part of `usage`, the
   * token and cost budgets and `run-end` from the start.
   */
  spent?: Usage;
  /**
   * Told the state of a run that stops waiting for decisions, before the run ends (awaited: the agent saves
   * it; a failure fails the run). The result is then `status: "waiting"` with the pending questions.
   */
  onSuspend?: (suspension: RunSuspension) => Promise<void>;
  /**
   * Continue a suspended run with the decisions on its questions (native tool calling): the turn it stopped
   * in is finished — approved calls made with the saved arguments, denied ones refused — and the run goes
   * on. Its budgets count what the earlier part used; `input`, `history` and `resume` are not used.
   */
  continueFrom?: RunContinuation;
}

/** The result of a run: a final answer, or (`status: "waiting"`) the questions it stopped to wait on. */
export interface RunResult {
  /**
   * `finished`: a final answer; `waiting`: saved, waiting for the decisions on `pending` (`agent.resume`).
   * Always set by the loop and the agent (optional only so a result made by hand, a test's runner, needs none).
   */
  status?: "finished" | "waiting";
  /** The final answer (absent while waiting). */
  text?: string;
  output?: unknown;
  usage: Usage;
  turns: number;
  runId: string;
  stopReason: "final" | "waiting";
  toolCalls: number;
  /** With `status: "waiting"`: the questions the run waits on, in the model's order. */
  pending?: ApprovalRequest[];
  /**
   * Sampling requests MCP servers sent while this run's tool calls were in flight, answered by the agent's
   * model: already part of `usage`, reported apart here (set by the agent, absent when there were none).
   */
  sampling?: { requests: number; usage: Usage };
  /** The conversation this run continued or started (set by the agent, absent for a run without one). */
  conversationId?: string;
  /**
   * The summary the model wrote of the turns its conversation outgrew (`growth: "summarise"`): how many
   * messages it replaced and the request's usage, already part of `usage`, reported apart here (set by the
   * agent, absent when no summary was written).
   */
  conversationSummary?: { messages: number; usage: Usage };
}

/** Run the loop to a final answer. Rejects with `E_BUDGET_*`, `E_ABORTED`, `E_RUN_FAILED`, `E_CONFIG_INVALID`, or the model's `E_UPSTREAM`. */
export async function runLoop(options: RunLoopOptions): Promise<RunResult> {
  const { model, runId, limits = {} } = options;
  const maxOutputRetries = checkRunOptions(options);
  const continued = options.continueFrom?.suspension;
  // A continued run's clock and budgets go on from what its earlier part used (the wait is not counted).
  const startedAt = performance.now() - (continued?.elapsedMs ?? 0);
  const emitEvent = createEmitter(options.onEvent, options.logger?.child({ runId }));
  const step = new StepInFlight();
  const emit: typeof emitEvent = (event, extra) => {
    step.observe(event);
    emitEvent(event, extra);
  };
  const budget = new Budget(limits, options.prices, (w) =>
    emit({ type: "budget-warning", runId, message: `${w.kind} budget at ${Math.round((w.used / w.limit) * 100)}%`, ...w }),
  );
  if (continued) {
    budget.usage = { ...continued.usage };
    budget.turns = continued.turns;
  }
  // Checked with the first response's usage, like a tool's reported usage.
  if (options.spent) budget.add(options.spent);
  const run = createRunSignal(limits.deadlineMs, options.signal, continued?.elapsedMs);
  // What was in flight when the deadline struck, read as it strikes (the aborted step ends right after).
  let stepAtTrip: string | undefined;
  run.signal.addEventListener("abort", () => (stepAtTrip = step.describe()), { once: true });
  const mode: ToolMode = model.supportsTools ? "native" : "json-action";
  if (continued && mode !== "native")
    throw new AgentdError(
      "E_USAGE",
      `run ${runId} waited in native tool calling; it continues only with a model that calls tools natively`,
    );
  let ctx: RunContext | undefined;
  // run-end pairs with run-start: a run that fails before it starts (tool listing) emits neither.
  const end = (stopReason: StopReason, error?: unknown) =>
    ctx &&
    emit({
      type: "run-end",
      runId,
      usage: budget.usage,
      turns: budget.turns,
      toolCalls: ctx.toolCalls,
      stopReason,
      durationMs: Math.round(performance.now() - startedAt),
      costUsd: options.prices ? budget.costUsd : undefined,
      ...(error !== undefined ? failureFields(error) : {}),
    });

  try {
    const listed: ToolDescriptor[] = await raceAbort(options.tools.list(), run.signal);
    ctx = new RunContext(contextInit(options, { listed, mode, budget, run, emit, maxOutputRetries, startedAt }));
    const { offered } = ctx.init;
    emit({ type: "run-start", runId, provider: model.provider, model: model.modelId, tools: offered.length, mode });
    const messages = openingMessages(options, mode, offered);
    const { onTurn, onMessages } = options;
    const turned = onTurn || onMessages ? (m: readonly ModelMessage[]) => (onTurn?.(m), onMessages?.(m)) : undefined;
    if (continued) ctx.toolCalls = continued.toolCalls - continued.pending.length;
    const answer = mode === "native" ? await runNativeLoop(ctx, messages, turned, continued) : await runJsonActionLoop(ctx, messages);
    if ("waiting" in answer) {
      const suspension: RunSuspension = {
        messages: messages.slice(1),
        ...answer.waiting,
        usage: budget.usage,
        turns: budget.turns,
        toolCalls: ctx.toolCalls,
        elapsedMs: Math.round(performance.now() - startedAt),
        allowedForRun: ctx.init.tools.approvals?.allowedForRun ?? [],
      };
      await options.onSuspend?.(suspension);
      end("waiting");
      const pending = answer.waiting.pending.map((p) => p.request);
      return {
        status: "waiting",
        usage: budget.usage,
        turns: budget.turns,
        runId,
        stopReason: "waiting",
        toolCalls: ctx.toolCalls,
        pending,
      };
    }
    onMessages?.(messages.slice(1));
    end("final");
    return {
      status: "finished",
      text: answer.text,
      ...("output" in answer ? { output: answer.output } : {}),
      usage: budget.usage,
      turns: budget.turns,
      runId,
      stopReason: "final",
      toolCalls: ctx.toolCalls,
    };
  } catch (e) {
    const error = runError(e, run.trip, stepAtTrip, budget, runId);
    end(run.trip?.stopReason ?? stopReasonOf(error), error);
    throw error;
  } finally {
    run.dispose();
  }
}

/** Check the options a run cannot start with; the number of output re-asks it allows. */
function checkRunOptions(options: RunLoopOptions): number {
  checkLimits(options.limits ?? {}, options.prices);
  const maxOutputRetries = options.maxOutputRetries ?? DEFAULT_MAX_OUTPUT_RETRIES;
  if (!Number.isInteger(maxOutputRetries) || maxOutputRetries < 0)
    throw new AgentdError("E_CONFIG_INVALID", `maxOutputRetries must be a whole number >= 0, got ${maxOutputRetries}`);
  return maxOutputRetries;
}

/** What {@link contextInit} takes besides the options: the listed tools and the run's own parts. */
interface RunParts {
  listed: ToolDescriptor[];
  mode: ToolMode;
  budget: Budget;
  run: RunSignal;
  emit: Emit;
  maxOutputRetries: number;
  startedAt: number;
}

/**
 * The run's shared state: the in-scope tools as offered to the model — provider-safe names for a native
 * tool caller, qualified names (which read better in a prompt) for JSON actions — and how to call them.
 */
function contextInit(options: RunLoopOptions, p: RunParts): RunContextInit {
  const { runId, limits = {} } = options;
  const inScope = compileScope(options.scope);
  const names = createToolNameMap(p.listed.map((t) => t.name));
  const offered: ModelToolDefinition[] = p.listed
    .filter((t) => inScope(t.name))
    .map((t) => ({
      name: p.mode === "native" ? (names.toProvider(t.name) as string) : t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
  return {
    runId,
    model: options.model,
    stream: options.stream ?? false,
    budget: p.budget,
    run: p.run,
    emit: p.emit,
    tools: {
      toolSet: options.tools,
      byName: new Map(p.listed.map((t) => [t.name, t])),
      names,
      inScope,
      offered: offered.map((t) => t.name),
      runId,
      signal: p.run.signal,
      toolTimeoutMs: limits.toolTimeoutMs,
      emit: p.emit,
      tracer: options.tracer,
      approvals: needsGate(options.approvals, p.listed)
        ? new ApprovalGate(gateOptions(options, p.mode), runId, p.emit, p.run.signal)
        : undefined,
    },
    offered,
    outputSchema: options.outputSchema,
    maxOutputRetries: p.maxOutputRetries,
    startedAt: p.startedAt,
    backpressure: options.backpressure,
    tracer: options.tracer,
  };
}

/**
 * The gate's options: a run suspends only in native tool calling (a JSON-action run asks its channel and
 * waits in memory, as its turns are not saved); a continued run brings its decisions, bound to its calls.
 */
function gateOptions(options: RunLoopOptions, mode: ToolMode): RunApprovals {
  const approvals = options.approvals ?? {};
  const continued = options.continueFrom;
  const suspend = mode === "native" ? approvals.suspend : undefined;
  if (!continued) return { ...approvals, suspend };
  const decided = new Map<string, { request: ApprovalRequest; decision: ApprovalDecision }>();
  for (const { request } of continued.suspension.pending) {
    const decision = continued.decisions.get(request.id);
    if (decision) decided.set(request.toolCallId, { request, decision });
  }
  return { ...approvals, suspend, decided, always: [...(approvals.always ?? []), ...continued.suspension.allowedForRun] };
}

/** The system prompt, then the user's request — or, natively, the saved conversation the run goes on from. */
function openingMessages(options: RunLoopOptions, mode: ToolMode, offered: ModelToolDefinition[]): ModelMessage[] {
  const system = buildSystemPrompt({ instructions: options.instructions, mode, tools: offered, outputSchema: options.outputSchema });
  if (options.continueFrom) return [{ role: "system", content: system }, ...options.continueFrom.suspension.messages];
  const resumed = mode === "native" && resumable(options.resume) ? options.resume : undefined;
  return [
    { role: "system", content: system },
    ...(resumed ?? [...(options.history ?? []), { role: "user" as const, content: options.input }]),
  ];
}

/**
 * The error a run ends with. A deadline or caller abort wins over whatever the interrupted request threw
 * (an adapter's own abort error, say); a deadline's message names the step it struck (`stepAtTrip`).
 * Errors the loop raised carry their data; others (the model's E_UPSTREAM) pass.
 */
function runError(e: unknown, trip: Trip | undefined, stepAtTrip: string | undefined, budget: Budget, runId: string): unknown {
  if (!trip) return e;
  const message = trip.code === "E_BUDGET_DEADLINE" && stepAtTrip ? `${trip.message}, ${stepAtTrip}` : trip.message;
  return new AgentdError(trip.code, message, {
    cause: e,
    data: { usage: budget.usage, turns: budget.turns, runId, stopReason: trip.stopReason },
  });
}

/** A saved conversation this run can go on from: it begins with the user's request and ends after tool results. */
const resumable = (saved: ModelMessage[] | undefined): saved is ModelMessage[] =>
  saved !== undefined && saved.length >= 3 && saved[0]?.role === "user" && saved.at(-1)?.role === "tool";

/** What run-end says about the error a run ended with: its code (`error` for a foreign one), message, reason. */
function failureFields(e: unknown): { error: string; message: string; reason?: string } {
  const reason = AgentdError.isInstance(e) ? e.options.data?.reason : undefined;
  return {
    error: AgentdError.isInstance(e) ? e.code : "error",
    message: e instanceof Error ? e.message : String(e),
    reason: typeof reason === "string" ? reason : undefined,
  };
}

const stopReasonOf = (e: unknown): StopReason => {
  const reason = AgentdError.isInstance(e) ? e.options.data?.stopReason : undefined;
  return typeof reason === "string" ? (reason as StopReason) : "failed";
};
