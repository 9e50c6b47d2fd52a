/**
 * The state one run shares between its tool modes (native tool calling and JSON actions): the budget,
 * the run's signal, the tools, and the three steps every turn is made of — ask the model, run the tools
 * it asked for, accept (or re-ask for) a final answer.
 */
import { AgentdError } from "../wire/errors.ts";
import type { Budget, StopReason, Trip } from "./budget.ts";
import { callModel } from "./call-model.ts";
import { type Emit, maskedText, TURN_TEXT_CHARS } from "./events.ts";
import { scrubSecrets } from "../log.ts";
import { type ExecutedToolCall, executeToolCall, type ToolCallRequest, type ToolRuntime } from "./execute-tool-call.ts";
import type { LanguageModel, ModelMessage, ModelRequest, ModelResponse, ModelRetry, ModelToolDefinition } from "../model/language-model.ts";
import { raceAbort, type RunSignal } from "./run-signal.ts";
import { failedRun, gaveUpMessage, giveUpReason, type RunFailureReason } from "./run-failure.ts";
import type { RunTracer } from "./trace-context.ts";
import { checkOutputValue, outputCorrection, type ParsedOutput, parseStructuredOutput } from "./structured-output.ts";

/** A final answer the run accepted. */
export interface FinalAnswer {
  text: string;
  output?: unknown;
}

/** What a run needs at every turn. */
export interface RunContextInit {
  runId: string;
  model: LanguageModel;
  stream: boolean;
  budget: Budget;
  run: RunSignal;
  emit: Emit;
  tools: ToolRuntime;
  /** The in-scope tools, as offered to a native tool-calling model (provider-safe names). */
  offered: ModelToolDefinition[];
  outputSchema?: Record<string, unknown>;
  maxOutputRetries: number;
  startedAt: number;
  tracer?: RunTracer;
  /** Awaited before each model request, each stream part read and each batch of tool calls (a slow consumer's hold). */
  backpressure?: () => Promise<void> | void;
}

/** One run's shared state and steps. */
export class RunContext {
  toolCalls = 0;
  private outputRetries = 0;

  constructor(readonly init: RunContextInit) {}

  get budget(): Budget {
    return this.init.budget;
  }

  /** The error a run ends with, carrying where it stopped. */
  fail(trip: Trip, extra: Record<string, unknown> = {}): AgentdError {
    return new AgentdError(trip.code, trip.message, { data: { ...this.data(trip.stopReason), ...extra } });
  }

  /** A run that failed although nothing broke (run-failure.ts): `E_RUN_FAILED` with `data.reason`. */
  failed(reason: RunFailureReason, message: string, extra: Record<string, unknown> = {}): AgentdError {
    return this.fail(failedRun(message), { reason, ...extra });
  }

  /** Wait while the consumer of the run's events is behind (no-op without one). */
  async paced(): Promise<void> {
    const wait = this.init.backpressure?.();
    if (wait) await raceAbort(wait, this.init.run.signal);
  }

  /** `{ usage, turns, runId, stopReason }` for errors and the run-end event. */
  data(stopReason: StopReason): { usage: Budget["usage"]; turns: number; runId: string; stopReason: StopReason } {
    return { usage: this.budget.usage, turns: this.budget.turns, runId: this.init.runId, stopReason };
  }

  /** One model request: counts a turn, emits request/response events, adds usage, checks the budgets. */
  async ask(messages: ModelMessage[], extra: Omit<ModelRequest, "messages"> = {}): Promise<ModelResponse> {
    const { init, budget } = this;
    const trip = budget.startTurn();
    if (trip) throw this.fail(trip);
    budget.checkTime(performance.now() - init.startedAt);
    await this.paced();
    const turn = budget.turns;
    init.emit({ type: "model-start", runId: init.runId, turn, messages: messages.length });
    const trace = init.tracer?.carrier({ kind: "model", turn });
    // The adapter logs its retries; the run's listeners see them as steps of this turn.
    const onRetry = (r: ModelRetry) => init.emit({ type: "model-retry", runId: init.runId, turn, ...r, reason: scrubSecrets(r.reason) });
    const response = await callModel(
      init.model,
      { ...extra, messages: messages.slice(), onRetry, ...(trace ? { headers: { ...trace } } : {}) },
      {
        stream: init.stream,
        signal: init.run.signal,
        emit: init.emit,
        runId: init.runId,
        turn,
        paced: init.backpressure ? () => this.paced() : undefined,
      },
    );
    const toolCalls = response.content.filter((p) => p.type === "tool-call").length;
    init.emit({
      type: "model-end",
      runId: init.runId,
      turn,
      usage: response.usage,
      finishReason: response.finishReason,
      toolCalls,
      responseModel: response.modelId,
      ...turnWords(response),
    });
    const over = budget.add(response.usage);
    if (over) throw this.fail(over);
    if (response.finishReason === "content-filter")
      throw this.failed("content-filter", "the provider's content filter withheld the model's answer (finish reason content-filter)");
    return response;
  }

  /**
   * Run the tool calls of one turn concurrently; results come back in the model's order. Refuses to
   * start tools whose results no model turn is left to read.
   */
  async runTools(requests: ToolCallRequest[]): Promise<ExecutedToolCall[]> {
    const exhausted = this.budget.turnsExhausted();
    if (exhausted) throw this.fail(exhausted);
    await this.paced();
    const turn = this.budget.turns;
    // Counted as they start, as the run's detail lists them: a run that fails or hits its deadline while a
    // tool runs reports the call it was waiting on, the same figure everywhere.
    this.toolCalls += requests.length;
    const done = await Promise.all(requests.map((r) => executeToolCall(this.init.tools, r, turn)));
    let over: Trip | undefined;
    for (const d of done) over = this.budget.add(d.outcome.usage) ?? over;
    if (over) throw this.fail(over);
    return done;
  }

  /**
   * Accept a final answer, or return the corrective message to re-ask with when it does not match the
   * output schema. Out of retries: `E_RUN_FAILED`. `value` is a JSON-action result that is not a string.
   * A give-up answer, and an empty one without a schema, fail the run (run-failure.ts).
   */
  acceptFinal(text: string, value?: { json: unknown }): FinalAnswer | { reask: string } {
    const schema = this.init.outputSchema;
    const gaveUp = value ? undefined : giveUpReason(text);
    if (gaveUp !== undefined) throw this.giveUp(gaveUp);
    if (!schema) {
      if (text.trim() === "") throw this.failed("empty-answer", "the model's final answer was empty");
      return { text };
    }
    const parsed: ParsedOutput = value ? checkOutputValue(value.json, schema) : parseStructuredOutput(text, schema);
    if (parsed.ok) return { text, output: parsed.value };
    if (this.outputRetries >= this.init.maxOutputRetries)
      throw this.failed(
        "output-invalid",
        `the model's final answer did not match the output schema after ${this.outputRetries} retries: ${parsed.errors.slice(0, 3).join("; ")}`,
        { errors: parsed.errors },
      );
    this.outputRetries++;
    return { reask: outputCorrection(parsed.errors, this.init.model.supportsTools === false) };
  }

  /** The error of a run the model gave up on (`reason` as it stated it, "" when it gave none). */
  giveUp(reason: string): AgentdError {
    return this.failed("gave-up", gaveUpMessage(reason));
  }
}

/**
 * The model's text of one response as its event carries it (masked, bounded), when there is any. Its
 * reasoning is not: reasoning reaches listeners only as `reasoning-delta` events (call-model.ts).
 */
function turnWords(response: ModelResponse): { text?: string } {
  const text = response.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  return text ? { text: maskedText(text, TURN_TEXT_CHARS) } : {};
}
