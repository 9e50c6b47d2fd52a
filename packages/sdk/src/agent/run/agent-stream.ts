/**
 * `agent.stream(input, options)`: one run as an async iterable of typed events — a view over the loop's own
 * events (`onEvent`), by the same names (`noun-start` / `noun-delta` / `noun-end`), ending with `finish`
 * in place of the loop's `run-end`. `finish` is the result, or the failure with its code — the same object
 * `agentd run --json` prints (without `type`), and the last line of `agentd run --stream`.
 *
 * Back-pressure: events wait in a buffer for the consumer. Once `highWaterMark` of them wait, the run
 * pauses at its next step — before reading the next part of the model's streamed response (one part makes
 * at most one delta), before the next model request, before the next batch of tool calls — until the
 * consumer has taken enough. Events emitted between two such steps are buffered beyond the mark: a turn's
 * `model-end`, the `tool-call-start`, `tool-call-progress` and `tool-call-end` of one batch of tool calls (at
 * most one progress a second per call), a budget warning and the `finish` — so at most `highWaterMark +
 * 2 × (tool calls in one turn) + 3` wait, and a progress event a second per running call. The deadline keeps
 * running while the run waits.
 *
 * Cancellation: `options.signal`, or leaving the loop (`break`, `return()`), aborts the run — the model
 * request is aborted and tool calls in flight are cancelled (`notifications/cancelled`); `return()`
 * resolves once the run has ended.
 */
import type { StopReason } from "../../loop/budget.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { Usage } from "../../model/language-model.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import { AgentdError } from "../../wire/errors.ts";
import { isAlreadyDone } from "../../triggers/runner/trigger-runner.ts";

/**
 * How a run ended. `ok` and `already-done` (the final answer was `ALREADY_DONE`) reached a final answer;
 * `failed` (`E_RUN_FAILED`, or an unexpected error), `budget_exceeded` (`E_BUDGET_*`), `upstream_unavailable`
 * (the model endpoint or an MCP server: `E_UPSTREAM`, `E_TIMEOUT`, `E_TRANSPORT`, …), `unauthorized` (the model
 * endpoint refused the credential: HTTP 401 or 403), `cancelled` (`E_ABORTED`) and `invalid` (`E_CONFIG_INVALID`,
 * `E_USAGE`) did not.
 */
export type RunStatus =
  | "ok"
  | "already-done"
  | "failed"
  | "budget_exceeded"
  | "upstream_unavailable"
  | "unauthorized"
  | "cancelled"
  | "invalid";

const UPSTREAM = new Set([
  "E_UPSTREAM",
  "E_TRANSPORT",
  "E_CONNECTION_CLOSED",
  "E_SESSION_EXPIRED",
  "E_UNAUTHORIZED",
  "E_PROTOCOL_VERSION",
  "E_TIMEOUT",
]);

/** HTTP statuses of a model endpoint refusing the credential (the adapters' `E_UPSTREAM` with `data.status`). */
const REFUSED = new Set([401, 403]);

/** The {@link RunStatus} of a run that ended with `error`. */
export function runStatusOf(error: unknown): Exclude<RunStatus, "ok" | "already-done"> {
  if (!AgentdError.isInstance(error)) return "failed";
  if (error.code.startsWith("E_BUDGET_")) return "budget_exceeded";
  // The endpoint answered and refused the key: retrying or waiting will not help, a new credential will.
  if (error.code === "E_UPSTREAM" && REFUSED.has(error.options.data?.status as number)) return "unauthorized";
  if (UPSTREAM.has(error.code)) return "upstream_unavailable";
  if (error.code === "E_ABORTED") return "cancelled";
  if (error.code === "E_CONFIG_INVALID" || error.code === "E_USAGE" || error.code === "E_STORE_LOCKED") return "invalid";
  return "failed";
}

/** What every finish carries. */
interface FinishCommon {
  type: "finish";
  runId: string;
  usage: Usage;
  turns: number;
  toolCalls: number;
  /** From the call to the end, connecting the MCP servers included. */
  durationMs: number;
  /** Spend, when model prices are configured. */
  costUsd?: number;
}

/** A run that reached a final answer. */
export interface RunFinishOk extends FinishCommon {
  status: "ok" | "already-done";
  /** The answer (absent when `output` is there). */
  text?: string;
  /** The parsed structured output, with an output schema. */
  output?: unknown;
  stopReason: "final";
  /** Sampling requests MCP servers made during the run (already in `usage`). */
  sampling?: RunResult["sampling"];
  /** The conversation the run continued or started (runs naming one). */
  conversationId?: string;
  /** The summary the model wrote of the turns the conversation outgrew (already in `usage`). */
  conversationSummary?: RunResult["conversationSummary"];
}

/** A run that did not. `error.code` is the `AgentdError` code; `error.reason` says why an `E_RUN_FAILED` failed. */
export interface RunFinishFailed extends FinishCommon {
  status: Exclude<RunStatus, "ok" | "already-done">;
  error: { code: string; message: string; reason?: string };
  stopReason: StopReason;
}

/** The last event of a run's stream: its result or its failure (`agentd run --json` prints it without `type`). */
export type RunFinish = RunFinishOk | RunFinishFailed;

/**
 * One event of {@link Agent.stream}, in the order they happen: the loop's {@link RunEvent}s by their own
 * names, then `finish` where the loop says `run-end`. Deltas come only from a streamed model request (the
 * default here); `reasoning-delta` only from models that stream their reasoning. Tool arguments and result
 * summaries have credentials masked.
 */
export type AgentStreamEvent = Exclude<RunEvent, { type: "run-end" }> | RunFinish;

/** A run as a stream of events; iterate it once (`for await`). */
export interface AgentStream extends AsyncIterable<AgentStreamEvent> {
  readonly runId: string;
  /** The run's result, or its `AgentdError` (settles whether or not you iterate; the run waits for a consumer). */
  readonly result: Promise<RunResult>;
  /** Events waiting for the consumer. */
  readonly buffered: number;
}

/** Default number of waiting events at which the run pauses. */
export const DEFAULT_HIGH_WATER_MARK = 64;

/** The stream-side view of a run (what `createAgent`'s run takes). */
export interface StreamRunOptions {
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  backpressure?: () => Promise<void> | void;
}

/** The finish of a run from its outcome. */
function finishOf(
  runId: string,
  outcome: { result: RunResult } | { error: unknown },
  end: Extract<RunEvent, { type: "run-end" }> | undefined,
  durationMs: number,
): RunFinish {
  // From the call: connecting the MCP servers and listing tools count (run-end's duration does not).
  const tail = { durationMs: Math.round(durationMs), costUsd: end?.costUsd };
  if ("result" in outcome) {
    const r = outcome.result;
    return {
      type: "finish",
      runId,
      status: isAlreadyDone(r) ? "already-done" : "ok",
      ...(r.output !== undefined ? { output: r.output } : { text: r.text ?? "" }),
      usage: r.usage,
      turns: r.turns,
      toolCalls: r.toolCalls,
      stopReason: "final",
      sampling: r.sampling,
      ...(r.conversationId ? { conversationId: r.conversationId } : {}),
      ...(r.conversationSummary ? { conversationSummary: r.conversationSummary } : {}),
      ...tail,
    };
  }
  const e = outcome.error;
  const data = AgentdError.isInstance(e) ? (e.options.data ?? {}) : {};
  const reason = typeof data.reason === "string" ? data.reason : undefined;
  return {
    type: "finish",
    runId,
    status: runStatusOf(e),
    error: {
      code: AgentdError.isInstance(e) ? e.code : "E_INTERNAL",
      message: e instanceof Error ? e.message : String(e),
      reason: reason || undefined,
    },
    usage: (data.usage as Usage | undefined) ?? end?.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    turns: typeof data.turns === "number" ? data.turns : (end?.turns ?? 0),
    toolCalls: end?.toolCalls ?? 0,
    stopReason: (typeof data.stopReason === "string" ? (data.stopReason as StopReason) : undefined) ?? end?.stopReason ?? "failed",
    ...tail,
  };
}

/**
 * Start a run and stream its events. `start` runs it (createAgent's run, with this stream's hooks);
 * `signal` is the caller's.
 */
export function streamRun(
  runId: string,
  start: (hooks: StreamRunOptions) => Promise<RunResult>,
  options: { signal?: AbortSignal; highWaterMark?: number; onEvent?: (event: RunEvent) => void },
): AgentStream {
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
  if (!Number.isInteger(highWaterMark) || highWaterMark < 1)
    throw new AgentdError("E_USAGE", `stream: highWaterMark must be a whole number >= 1, got ${highWaterMark}`);
  const queue: AgentStreamEvent[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let hold: { promise: Promise<void>; release: () => void } | undefined;
  let runEnd: Extract<RunEvent, { type: "run-end" }> | undefined;
  const stop = new AbortController();
  const started = performance.now();

  const push = (e: AgentStreamEvent) => {
    queue.push(e);
    wake?.();
  };
  const onEvent = (e: RunEvent) => {
    options.onEvent?.(e);
    // The stream is a view: every event as it is, but `run-end`, which `finish` replaces.
    if (e.type === "run-end") runEnd = e;
    else if (!stop.signal.aborted) push(e);
  };
  const backpressure = (): Promise<void> | undefined => {
    if (queue.length < highWaterMark) return undefined;
    if (!hold) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      hold = { promise, release };
    }
    return hold.promise;
  };
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const result = start({ signal, onEvent, backpressure });
  const settled = result
    .then(
      (r) => finishOf(runId, { result: r }, runEnd, performance.now() - started),
      (error: unknown) => finishOf(runId, { error }, runEnd, performance.now() - started),
    )
    .then((finish) => {
      if (!stop.signal.aborted) push(finish);
      ended = true;
      wake?.();
    });
  // The rejection is the caller's to read (or not): never an unhandled one.
  result.catch(() => {});

  let iterating = false;
  const release = () => {
    if (hold && queue.length < highWaterMark) {
      hold.release();
      hold = undefined;
    }
  };
  const close = async (): Promise<IteratorResult<AgentStreamEvent>> => {
    if (!ended) stop.abort(new AgentdError("E_ABORTED", "the stream's consumer stopped reading"));
    queue.length = 0;
    hold?.release();
    await settled;
    return { done: true, value: undefined };
  };
  const iterator: AsyncIterator<AgentStreamEvent> = {
    async next() {
      for (;;) {
        const event = queue.shift();
        if (event) {
          release();
          return { done: false, value: event };
        }
        if (ended || stop.signal.aborted) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
    return: close,
    throw: async (e: unknown) => {
      await close();
      throw e;
    },
  };
  return {
    runId,
    result,
    get buffered() {
      return queue.length;
    },
    [Symbol.asyncIterator]() {
      if (iterating) throw new AgentdError("E_USAGE", "a run's stream can be iterated once");
      iterating = true;
      return iterator;
    },
  };
}
