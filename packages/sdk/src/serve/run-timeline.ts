/**
 * What a run's detail keeps so the console can draw it as a timeline: when each model turn started and how
 * long it took, the model's text and reasoning summary of each turn (masked and bounded by the loop before
 * they reach here, cut again here against the run's own bound), the retries of each model request, which
 * turns re-asked for a final answer that did not match the output schema, the subagent a spawn call
 * started, and, for a failed run, the step that failed and why. Folded from the same run events as the rest
 * of the detail (`run-detail.ts`), so everything recorded is already masked where it enters the record.
 *
 * Bounds ({@link RUN_TIMELINE_LIMITS}): a turn keeps at most 2,000 characters of text and 1,000 of
 * reasoning, 10 retries; a run keeps at most 32,000 characters of text and reasoning in all (later turns
 * keep their timing and usage, `textDropped` counts the turns whose words were not kept).
 */
import { type RunEvent, TURN_REASONING_CHARS, TURN_TEXT_CHARS } from "../loop/events.ts";
import { scrubSecrets } from "../log.ts";
import type { RunDetail, TurnDetail } from "./run-detail.ts";

/** The bounds of what a run's timeline keeps. */
export const RUN_TIMELINE_LIMITS = Object.freeze({
  textChars: TURN_TEXT_CHARS,
  reasoningChars: TURN_REASONING_CHARS,
  retries: 10,
  runTextChars: 32_000,
});

/** One retry of a turn's model request. */
export interface TurnRetry {
  retry: number;
  delayMs: number;
  status?: number;
  reason: string;
}

/** What the timeline adds to a model turn. */
export interface TurnTimeline {
  /** When the model request went out. */
  startedAt?: string;
  /** From the request to the complete answer (retries and their waits included). */
  durationMs?: number;
  /** The model's text (streamed text while the turn is in flight), masked, bounded. */
  text?: string;
  /** The model's reasoning summary, where the dialect gives one (its `reasoning-delta` events, streamed or not). */
  reasoning?: string;
  /** The retries of this turn's model request. */
  retries?: TurnRetry[];
  /** This turn re-asked for the final answer (the n-th time) after one that did not match the output schema. */
  reask?: number;
  /** Its words were not kept: the run's bound was reached. */
  wordsDropped?: boolean;
}

/** The step a failed run failed at, in words. */
export interface FailedStep {
  /** `tool`: a tool call was in flight; `model`: the model's request or its answer. */
  kind: "model" | "tool";
  turn?: number;
  /** The call in flight, for `tool`. */
  toolCallId?: string;
  tool?: string;
  code: string;
  message: string;
  reason?: string;
}

/** What the timeline adds to a run's detail. */
export interface RunTimeline {
  /** When a failed run failed, the step it failed at. */
  failure?: FailedStep;
  /** Turns whose text was not kept past the run's bound. */
  textDropped?: number;
  /** Characters of text and reasoning kept so far. */
  textChars?: number;
}

/** Fold the timeline's part of one run event into `detail` (in place); `run-detail.ts` does the rest. */
export function applyTimelineEvent(detail: RunDetail, e: RunEvent, now = Date.now()): void {
  switch (e.type) {
    case "model-start": {
      const t = turnOf(detail, e.turn);
      if (!t) return;
      t.startedAt = new Date(now).toISOString();
      const before = detail.turns.at(-2);
      // A turn after one that answered without tool calls is a re-ask: the answer did not match the schema.
      if (before && before.finishReason !== undefined && before.toolCalls.length === 0 && before.finishReason !== "tool-calls")
        t.reask = (before.reask ?? 0) + 1;
      return;
    }
    case "text-delta":
    case "reasoning-delta": {
      const t = turnOf(detail, e.turn);
      const field = e.type === "text-delta" ? "text" : "reasoning";
      if (t) keepWords(detail, t, field, scrubSecrets((t[field] ?? "") + e.delta));
      return;
    }
    case "model-retry": {
      const t = turnOf(detail, e.turn);
      if (!t || (t.retries?.length ?? 0) >= RUN_TIMELINE_LIMITS.retries) return;
      (t.retries ??= []).push({
        retry: e.retry,
        delayMs: e.delayMs,
        ...(e.status !== undefined ? { status: e.status } : {}),
        reason: e.reason,
      });
      return;
    }
    case "model-end": {
      const t = turnOf(detail, e.turn);
      if (!t) return;
      if (t.startedAt) t.durationMs = Math.max(0, now - Date.parse(t.startedAt));
      // The response's words replace what streamed: whole, masked over the whole text.
      if (e.text !== undefined) keepWords(detail, t, "text", e.text);
      return;
    }
    case "tool-call-end": {
      const call = turnOf(detail, e.turn)?.toolCalls.find((c) => c.toolCallId === e.toolCallId);
      if (call && !e.isError && /^subagent[._]spawn$/.test(call.tool)) {
        const id = detail.subagents.at(-1);
        if (id && call.resultExcerpt?.includes(id)) call.subagent = id;
      }
      return;
    }
    case "run-end":
      if (e.error) detail.failure = failedStep(detail, e.error, e.message ?? e.error, e.reason);
      return;
    default:
      return;
  }
}

/** The step a run failed at: the tool call still in flight, else the last model turn. */
function failedStep(detail: RunDetail, code: string, message: string, reason?: string): FailedStep {
  for (let i = detail.turns.length - 1; i >= 0; i--) {
    const t = detail.turns[i]!;
    const open = t.toolCalls.find((c) => c.durationMs === undefined);
    if (open)
      return { kind: "tool", turn: t.turn, toolCallId: open.toolCallId, tool: open.name, code, message, ...(reason ? { reason } : {}) };
  }
  const last = detail.turns.at(-1);
  return { kind: "model", ...(last ? { turn: last.turn } : {}), code, message, ...(reason ? { reason } : {}) };
}

/** Keep a turn's text or reasoning within the turn's and the run's bounds. */
function keepWords(detail: RunDetail, t: TurnDetail, field: "text" | "reasoning", value: string): void {
  const max = field === "text" ? RUN_TIMELINE_LIMITS.textChars : RUN_TIMELINE_LIMITS.reasoningChars;
  const cut = value.length > max ? `${value.slice(0, max - 1)}…` : value;
  const had = t[field]?.length ?? 0;
  const total = (detail.textChars ?? 0) - had + cut.length;
  if (total > RUN_TIMELINE_LIMITS.runTextChars) {
    if (!t.wordsDropped) detail.textDropped = (detail.textDropped ?? 0) + 1;
    t.wordsDropped = true;
    return;
  }
  detail.textChars = total;
  t[field] = cut;
}

function turnOf(detail: RunDetail, turn: number): TurnDetail | undefined {
  for (let i = detail.turns.length - 1; i >= 0; i--) if (detail.turns[i]!.turn === turn) return detail.turns[i];
  return undefined;
}
