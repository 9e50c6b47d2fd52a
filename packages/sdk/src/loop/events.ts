/**
 * Run events: what a caller watching a run sees (`onEvent`, `agent.on()`, and — the same events by the same
 * names — `agent.stream()`), mirrored as telemetry records named after them (`run-start` → `run.start`,
 * `tool-call-end` → `tool.call.end`: the type with dots for hyphens). One vocabulary, the stream parts'
 * own: `noun-start` / `noun-delta` / `noun-end`, a stream's last event `finish`. Telemetry records carry
 * names, sizes, usage and durations, never whole payloads (a payload preview only when it is small, the
 * arguments a model wrote only at debug level). The events themselves also carry what a person watching
 * wants to see — text and reasoning deltas, a tool call's arguments and a short summary of its result —
 * always with credentials masked (`redact`); those fields never reach an info-level record. The names used
 * before this vocabulary are kept for one minor version behind an explicit opt-in (`legacy-events.ts`).
 */
import { type Logger, type LogLevel, redact, scrubSecrets } from "../log.ts";
import type { BudgetWarning, StopReason } from "./budget.ts";
import type { FinishReason, Usage } from "../model/language-model.ts";

/** How the loop talks to the model about tools. */
export type ToolMode = "native" | "json-action";

/** One event of a run, in the order they happen. */
export type RunEvent =
  | { type: "run-start"; runId: string; provider: string; model: string; tools: number; mode: ToolMode }
  | {
      /** A model request begins (`turn` counts from 1; `messages` in the conversation sent). */
      type: "model-start";
      runId: string;
      turn: number;
      messages: number;
      /** The trace id of the request's span, when tracing is on (added by the agent, not the loop). */
      traceId?: string;
    }
  | { type: "text-delta"; runId: string; turn: number; delta: string }
  /** Reasoning text as the model streams it, or a whole response's reasoning summary at once (runs not streamed); never part of the answer. */
  | { type: "reasoning-delta"; runId: string; turn: number; delta: string }
  | {
      /** The model's response is complete: this turn's usage, why it stopped, how many tool calls it asked for. */
      type: "model-end";
      runId: string;
      turn: number;
      usage: Usage;
      finishReason: FinishReason;
      toolCalls: number;
      /** The model the provider says answered, when it says. */
      responseModel?: string;
      /** The model's text of this turn, credentials masked, cut to {@link TURN_TEXT_CHARS} (never logged). */
      text?: string;
    }
  | {
      /** The adapter retries this turn's model request after a transient failure (a 429, a 5xx, a reset). */
      type: "model-retry";
      runId: string;
      turn: number;
      /** 1 for the first retry. */
      retry: number;
      delayMs: number;
      status?: number;
      /** What went wrong, one line, credentials masked. */
      reason: string;
    }
  | {
      /** A tool call starts: the name the model used, the `server/tool` it resolves to, its arguments. */
      type: "tool-call-start";
      runId: string;
      turn: number;
      toolCallId: string;
      /** The name the model used. */
      name: string;
      /** The tool it resolves to (`server/tool`), when it resolves. */
      qualifiedName?: string;
      argumentsSize: number;
      /** The arguments the model wrote, credentials masked (never logged above debug level). */
      arguments: unknown;
    }
  | {
      /** A tool call ended: error or not, result size (characters), duration, the result's first line. */
      type: "tool-call-end";
      runId: string;
      turn: number;
      toolCallId: string;
      name: string;
      qualifiedName?: string;
      isError: boolean;
      size: number;
      durationMs: number;
      /** The start of the result text, on one line, credentials masked (never logged above debug level). */
      summary: string;
      /** The call was not made: the run suspends and the call waits for a person's decision (made when it resumes). */
      waiting?: true;
    }
  | {
      /** A tool reported progress (MCP `notifications/progress`): at most one a second per call. */
      type: "tool-call-progress";
      runId: string;
      turn: number;
      toolCallId: string;
      name: string;
      qualifiedName?: string;
      progress: number;
      total?: number;
      /** The tool's own words, cut to {@link LOG_PREVIEW_CHARS}. */
      message?: string;
      /** Since the call started. */
      elapsedMs: number;
    }
  /** A budget passed 80% of its limit. */
  | ({ type: "budget-warning"; runId: string; message: string } & BudgetWarning)
  | {
      /** A tool call waits for a person's decision (loop/approvals/): the question, as the approval channel got it. */
      type: "approval-requested";
      runId: string;
      turn: number;
      toolCallId: string;
      name: string;
      qualifiedName: string;
      /** The request's id (`apr-…`): its decision names it. */
      requestId: string;
      server?: string;
      tool: string;
      /** The rule that asked, in one line. */
      rule: string;
      /** SHA-256 of the arguments in canonical JSON. */
      digest: string;
      /** The arguments, credentials masked (never logged above debug level). */
      arguments?: Record<string, unknown>;
    }
  | {
      /** The decision on an `approval-requested`: who gave it (`by`: the channel's word, `timeout`, `nobody`), what, why. */
      type: "approval-decided";
      runId: string;
      turn: number;
      toolCallId: string;
      name: string;
      qualifiedName: string;
      requestId: string;
      decision: "approve" | "deny" | "always";
      by: string;
      reason?: string;
      waitedMs: number;
    }
  | {
      type: "run-end";
      runId: string;
      usage: Usage;
      turns: number;
      toolCalls: number;
      stopReason: StopReason;
      durationMs: number;
      /** Spend, when model prices are configured. */
      costUsd?: number;
      /** The error code when the run did not end with a final answer. */
      error?: string;
      /** What went wrong, in one line, when it did not. */
      message?: string;
      /** Why a failed run (`E_RUN_FAILED`) failed: see {@link RunFailureReason}. */
      reason?: string;
    };

/** Payload previews in telemetry stop at this many characters. */
export const LOG_PREVIEW_CHARS = 200;

/** Cut a string for telemetry. */
export const preview = (s: string): string => (s.length > LOG_PREVIEW_CHARS ? `${s.slice(0, LOG_PREVIEW_CHARS)}…` : s);

/** A tool result's summary in events stops at this many characters. */
export const SUMMARY_CHARS = 120;

/** One line of at most {@link SUMMARY_CHARS} characters from a result text, credentials masked. */
export const summarize = (text: string): string => {
  const line = scrubSecrets(text).replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS - 1)}…` : line;
};

/** Tool arguments as events carry them: credential-like keys and credential-shaped values masked. */
export const maskArguments = (args: unknown): unknown =>
  typeof args === "object" && args !== null && !Array.isArray(args)
    ? redact(args as Record<string, unknown>)
    : typeof args === "string"
      ? scrubSecrets(args)
      : args;

/** A model turn's text in its `model-response` event stops at this many characters. */
export const TURN_TEXT_CHARS = 2000;
/** A model turn's reasoning as a run's timeline keeps it (from its `reasoning-delta` events, streamed or not) stops at this many characters. */
export const TURN_REASONING_CHARS = 1000;

/** A model's text as events carry it: credentials masked, cut to `max` characters. */
export const maskedText = (text: string, max: number): string => {
  const masked = scrubSecrets(text);
  return masked.length > max ? `${masked.slice(0, max - 1)}…` : masked;
};

/** Fields of an event that are for the event's listeners only, never an info-level record. */
const EVENT_ONLY = new Set(["arguments", "summary", "text"]);

/** Emits run events to the caller and to the logger. */
export type Emit = (event: RunEvent, logExtra?: Record<string, unknown>) => void;

/** The level of each event's telemetry record (deltas have none: they are for listeners only). */
const LOG: Partial<Record<RunEvent["type"], LogLevel>> = {
  "run-start": "info",
  "model-start": "info",
  "model-end": "debug",
  "tool-call-start": "info",
  "tool-call-end": "info",
  "tool-call-progress": "info",
  "budget-warning": "warn",
  "approval-requested": "info",
  "approval-decided": "info",
  "run-end": "info",
};

/** The telemetry record's name of an event type: the type with dots for hyphens (`tool-call-end` → `tool.call.end`). */
export const recordNameOf = (type: RunEvent["type"]): string => type.replaceAll("-", ".");

/** Build the emitter of one run. A listener that throws is logged, never allowed to break the run. */
export function createEmitter(onEvent: ((e: RunEvent) => void) | undefined, logger: Logger | undefined): Emit {
  return (event, logExtra) => {
    if (onEvent) {
      try {
        onEvent(event);
      } catch (e) {
        logger?.warn("run.listener_error", { eventType: event.type, error: e instanceof Error ? e.message : String(e) });
      }
    }
    const level0 = LOG[event.type];
    if (!logger || !level0) return;
    const name = recordNameOf(event.type);
    const fields = Object.fromEntries(Object.entries(event).filter(([k]) => k !== "type" && !EVENT_ONLY.has(k)));
    const level = event.type === "run-end" && event.error ? "warn" : level0;
    // The arguments a model wrote may carry anything (a pasted credential): they go to a debug record only.
    const { arguments: args, ...extra } = logExtra ?? {};
    logger.log(level, name, { ...fields, ...extra });
    if (args !== undefined) logger.debug(`${name}.arguments`, { runId: event.runId, arguments: args });
  };
}
