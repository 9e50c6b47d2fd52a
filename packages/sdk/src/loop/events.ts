/**
 * Run events: what a caller watching a run sees (`onEvent`), mirrored as telemetry records (`run.start`,
 * `model.request`, `tool.call`, `tool.progress`, `tool.result`, `approval.requested`, `approval.decided`, `run.end`). Telemetry records carry names, sizes, usage
 * and durations, never whole payloads (a payload preview only when it is small, the arguments a model
 * wrote only at debug level). The events themselves also carry what a person watching wants to see —
 * text and reasoning deltas, a tool call's arguments and a short summary of its result — always with
 * credentials masked (`redact`); those fields never reach an info-level record.
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
      type: "model-request";
      runId: string;
      turn: number;
      messages: number;
      /** The trace id of the request's span, when tracing is on (added by the agent, not the loop). */
      traceId?: string;
    }
  | { type: "text-delta"; runId: string; turn: number; delta: string }
  /** Reasoning text as the model streams it (streamed runs, models that stream their reasoning); never part of the answer. */
  | { type: "reasoning-delta"; runId: string; turn: number; delta: string }
  | {
      type: "model-response";
      runId: string;
      turn: number;
      usage: Usage;
      finishReason: FinishReason;
      toolCalls: number;
      /** The model the provider says answered, when it says. */
      responseModel?: string;
    }
  | {
      type: "tool-call";
      runId: string;
      turn: number;
      toolCallId: string;
      /** The name the model used. */
      name: string;
      /** The tool it resolves to (`server/tool`), when it resolves. */
      qualifiedName?: string;
      argumentsSize: number;
      /** The arguments the model wrote, credentials masked (never logged above debug level). */
      arguments?: unknown;
    }
  | {
      type: "tool-result";
      runId: string;
      turn: number;
      toolCallId: string;
      name: string;
      qualifiedName?: string;
      isError: boolean;
      size: number;
      durationMs: number;
      /** The start of the result text, on one line, credentials masked (never logged above debug level). */
      summary?: string;
    }
  | {
      /** A tool reported progress (MCP `notifications/progress`): at most one a second per call. */
      type: "tool-progress";
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
  | {
      /** A tool call waits for a person's decision (loop/approvals/): the question, as the approval channel got it. */
      type: "approval-request";
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
      /** The decision on an `approval-request`: who gave it (`by`: the channel's word, `timeout`, `nobody`), what, why. */
      type: "approval-decision";
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
  | ({ type: "budget"; runId: string; message: string } & BudgetWarning)
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

/** Fields of an event that are for the event's listeners only, never an info-level record. */
const EVENT_ONLY = new Set(["arguments", "summary"]);

/** Emits run events to the caller and to the logger. */
export type Emit = (event: RunEvent, logExtra?: Record<string, unknown>) => void;

const LOG: Partial<Record<RunEvent["type"], [LogLevel, string]>> = {
  "run-start": ["info", "run.start"],
  "model-request": ["info", "model.request"],
  "model-response": ["debug", "model.response"],
  "tool-call": ["info", "tool.call"],
  "tool-result": ["info", "tool.result"],
  "tool-progress": ["info", "tool.progress"],
  "approval-request": ["info", "approval.requested"],
  "approval-decision": ["info", "approval.decided"],
  budget: ["warn", "budget.warning"],
  "run-end": ["info", "run.end"],
};

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
    const spec = LOG[event.type];
    if (!logger || !spec) return;
    const fields = Object.fromEntries(Object.entries(event).filter(([k]) => k !== "type" && !EVENT_ONLY.has(k)));
    const level = event.type === "run-end" && event.error ? "warn" : spec[0];
    // The arguments a model wrote may carry anything (a pasted credential): they go to a debug record only.
    const { arguments: args, ...extra } = logExtra ?? {};
    logger.log(level, spec[1], { ...fields, ...extra });
    if (args !== undefined) logger.debug(`${spec[1]}.arguments`, { runId: event.runId, arguments: args });
  };
}
