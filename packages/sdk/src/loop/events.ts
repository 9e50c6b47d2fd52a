/**
 * Run events: what a caller watching a run sees (`onEvent`), mirrored as telemetry records (`run.start`,
 * `model.request`, `tool.call`, `tool.progress`, `tool.result`, `run.end`). Events carry names, sizes, usage and
 * durations, never whole payloads; telemetry adds a payload preview only when it is small.
 */
import type { Logger, LogLevel } from "../log.ts";
import type { BudgetWarning, StopReason } from "./budget.ts";
import type { FinishReason, Usage } from "./model.ts";

/** How the loop talks to the model about tools. */
export type ToolMode = "native" | "json-action";

/** One event of a run, in the order they happen. */
export type RunEvent =
  | { type: "run-start"; runId: string; provider: string; model: string; tools: number; mode: ToolMode }
  | { type: "model-request"; runId: string; turn: number; messages: number }
  | { type: "text-delta"; runId: string; turn: number; delta: string }
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
    };

/** Payload previews in telemetry stop at this many characters. */
export const LOG_PREVIEW_CHARS = 200;

/** Cut a string for telemetry. */
export const preview = (s: string): string => (s.length > LOG_PREVIEW_CHARS ? `${s.slice(0, LOG_PREVIEW_CHARS)}…` : s);

/** Emits run events to the caller and to the logger. */
export type Emit = (event: RunEvent, logExtra?: Record<string, unknown>) => void;

const LOG: Partial<Record<RunEvent["type"], [LogLevel, string]>> = {
  "run-start": ["info", "run.start"],
  "model-request": ["info", "model.request"],
  "model-response": ["debug", "model.response"],
  "tool-call": ["info", "tool.call"],
  "tool-result": ["info", "tool.result"],
  "tool-progress": ["info", "tool.progress"],
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
    const { type: _type, ...fields } = event;
    const level = event.type === "run-end" && event.error ? "warn" : spec[0];
    // The arguments a model wrote may carry anything (a pasted credential): they go to a debug record only.
    const { arguments: args, ...extra } = logExtra ?? {};
    logger.log(level, spec[1], { ...fields, ...extra });
    if (args !== undefined) logger.debug(`${spec[1]}.arguments`, { runId: event.runId, arguments: args });
  };
}
