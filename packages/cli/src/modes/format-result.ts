/**
 * What a run prints on stdout (stdout carries results only; telemetry goes to stderr). `once` prints its
 * one result; the long-running modes print one result per run as it ends: the text, or with `--json`
 * one JSON object a line (NDJSON) for every run, failed ones included, each naming its trigger.
 */
import type { RunResult } from "@agentd/sdk";
import type { TriggerRunData } from "@agentd/sdk/agent";
import type { RunOutcome } from "@agentd/sdk/triggers";
import { forTerminal } from "../terminal-text.ts";

/** stdout of a finished run: the text (or JSON output), or the JSON envelope. */
export function formatResult(result: RunResult, json: boolean, durationMs: number, extra: Record<string, unknown> = {}): string {
  if (json) {
    const envelope = {
      ...extra,
      runId: result.runId,
      ...(result.output !== undefined ? { output: result.output } : { text: result.text ?? "" }),
      usage: result.usage,
      turns: result.turns,
      toolCalls: result.toolCalls,
      stopReason: result.stopReason,
      sampling: result.sampling,
      conversationSummary: result.conversationSummary,
      durationMs: Math.round(durationMs),
    };
    return `${JSON.stringify(envelope)}\n`;
  }
  return formatText(result);
}

/** stdout of a finished run without `--json`: the text, or the structured output as indented JSON. */
export function formatText(result: { text?: string; output?: unknown }): string {
  const body = result.output !== undefined ? JSON.stringify(result.output, null, 2) : (result.text ?? "");
  return body.endsWith("\n") ? body : `${body}\n`;
}

/**
 * A run's answer as written to `stream`: on a terminal the model's text has its control characters escaped
 * (a model that read a hostile page must not set the window title or write the clipboard); to a pipe or a
 * file it is the answer as the model wrote it, byte for byte.
 */
export function answerFor(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY === true ? forTerminal(text, { lines: true }) : text;
}

/**
 * stdout for one triggered run. Text: the result of an `ok` run, nothing otherwise (an `already-done`
 * run prints nothing). JSON: a line for every run, with `trigger`, `runId` and `status`.
 */
export function formatRunLine(trigger: string, runId: string, outcome: RunOutcome, durationMs: number, json: boolean): string {
  const data = (outcome.data ?? {}) as TriggerRunData;
  const result = data.result;
  if (!json) return outcome.status === "ok" && result ? formatResult(result, false, durationMs) : "";
  if (result) return formatResult(result, true, durationMs, { trigger, status: outcome.status });
  const line = {
    trigger,
    runId,
    status: outcome.status,
    code: data.code || undefined,
    message: outcome.message || undefined,
    usage: data.usage,
    durationMs: Math.round(durationMs),
  };
  return `${JSON.stringify(line)}\n`;
}
