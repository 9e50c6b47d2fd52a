/**
 * The detail of one run as `agent://runs/{runId}` shows it: each model turn with its request summary and
 * usage, each tool call with its server, arguments (credentials masked), duration, result excerpt and error,
 * and the subagents it spawned. Built from the loop's run events, bounded: excerpts are cut, and past
 * {@link RUN_DETAIL_LIMITS} turns or tool calls a run keeps counting but stops keeping (`dropped` says how
 * many), so one long run never outweighs the byte bound of its owner's history.
 */
import { maskArguments, type RunEvent } from "../loop/events.ts";
import type { FinishReason, Usage } from "../model/language-model.ts";
import { applyTimelineEvent, type RunTimeline, type TurnTimeline } from "./run-timeline.ts";

/** One tool call of a run. */
export interface ToolCallDetail {
  toolCallId: string;
  /** The name the model used. */
  name: string;
  /** The MCP server it went to (the part before `/` of its qualified name), when it resolved to one. */
  server?: string;
  /** The tool's name on that server (or the name the model used when it did not resolve). */
  tool: string;
  /** The arguments the model wrote, credentials masked, as JSON cut to {@link RUN_DETAIL_LIMITS.argumentsChars}. */
  arguments?: string;
  startedAt: string;
  /** Present once the call returned. */
  durationMs?: number;
  /** The result's size in characters. */
  resultSize?: number;
  /** The start of the result, one line, credentials masked (when it did not fail). */
  resultExcerpt?: string;
  /** The start of the error the tool returned, one line, credentials masked (when it failed). */
  error?: string;
  /** The subagent a `subagent.spawn` call started (its id, as the run's `subagents` lists it). */
  subagent?: string;
}

/** One model turn of a run (with its timeline: start, duration, text, retries; `run-timeline.ts`). */
export interface TurnDetail extends TurnTimeline {
  turn: number;
  /** The request: how many messages went to the model. */
  messages: number;
  /** The model the provider says answered, when it says. */
  model?: string;
  /** Present once the model answered. */
  usage?: Usage;
  finishReason?: FinishReason;
  /** The tool calls the model asked for in this turn. */
  toolCalls: ToolCallDetail[];
}

/** What a run did, turn by turn (and the step it failed at; `run-timeline.ts`). */
export interface RunDetail extends RunTimeline {
  turns: TurnDetail[];
  /** The ids of the subagents the run spawned (`subagent.spawn` calls that returned one). */
  subagents: string[];
  /** Turns and tool calls not kept past the bounds. */
  dropped?: { turns: number; toolCalls: number };
  /** Spend, when model prices are configured. */
  costUsd?: number;
  /** How the run ended (the loop's stop reason) and how long it took. */
  stopReason?: string;
  durationMs?: number;
  /** Why a failed run failed, when the loop said (e.g. `content-filter`). */
  reason?: string;
  /** The W3C trace id of the run's spans, when tracing (OpenTelemetry) is on. */
  traceId?: string;
}

/** The bounds of a run's detail. */
export const RUN_DETAIL_LIMITS = Object.freeze({ turns: 50, toolCalls: 200, argumentsChars: 500, subagents: 50 });

/** A fresh, empty detail. */
export const emptyRunDetail = (): RunDetail => ({ turns: [], subagents: [] });

/** Fold one run event into `detail` (in place). */
export function applyRunEvent(detail: RunDetail, e: RunEvent): void {
  applyDetailEvent(detail, e);
  applyTimelineEvent(detail, e);
}

function applyDetailEvent(detail: RunDetail, e: RunEvent): void {
  switch (e.type) {
    case "model-request":
      if (e.traceId && !detail.traceId) detail.traceId = e.traceId;
      if (detail.turns.length >= RUN_DETAIL_LIMITS.turns) drop(detail, "turns");
      else detail.turns.push({ turn: e.turn, messages: e.messages, toolCalls: [] });
      return;
    case "model-response": {
      const t = turnOf(detail, e.turn);
      if (!t) return;
      t.usage = e.usage;
      t.finishReason = e.finishReason;
      if (e.responseModel) t.model = e.responseModel;
      return;
    }
    case "tool-call": {
      const t = turnOf(detail, e.turn);
      if (!t || countCalls(detail) >= RUN_DETAIL_LIMITS.toolCalls) return drop(detail, "toolCalls");
      const qualified = e.qualifiedName ?? e.name;
      const slash = e.qualifiedName ? qualified.indexOf("/") : -1;
      const args = e.arguments === undefined ? undefined : JSON.stringify(maskArguments(e.arguments));
      t.toolCalls.push({
        toolCallId: e.toolCallId,
        name: e.name,
        ...(slash > 0 ? { server: qualified.slice(0, slash), tool: qualified.slice(slash + 1) } : { tool: qualified }),
        arguments: args === undefined ? undefined : cut(args, RUN_DETAIL_LIMITS.argumentsChars),
        startedAt: new Date().toISOString(),
      });
      return;
    }
    case "tool-result": {
      const call = turnOf(detail, e.turn)?.toolCalls.find((c) => c.toolCallId === e.toolCallId);
      if (!call) return;
      call.durationMs = e.durationMs;
      call.resultSize = e.size;
      if (e.summary !== undefined) call[e.isError ? "error" : "resultExcerpt"] = e.summary;
      else if (e.isError) call.error = "the tool returned an error";
      const spawned = !e.isError && /^subagent[._]spawn$/.test(call.tool) ? subagentIdOf(e.summary) : undefined;
      if (spawned && detail.subagents.length < RUN_DETAIL_LIMITS.subagents && !detail.subagents.includes(spawned))
        detail.subagents.push(spawned);
      return;
    }
    case "run-end":
      detail.stopReason = e.stopReason;
      detail.durationMs = e.durationMs;
      if (e.costUsd !== undefined) detail.costUsd = e.costUsd;
      if (e.reason) detail.reason = e.reason;
      return;
    default:
      return;
  }
}

/** What the detail costs in the history's byte bound, roughly (its JSON in UTF-16 units). */
export function runDetailBytes(detail: RunDetail | undefined): number {
  return detail ? JSON.stringify(detail).length : 0;
}

function turnOf(detail: RunDetail, turn: number): TurnDetail | undefined {
  for (let i = detail.turns.length - 1; i >= 0; i--) if (detail.turns[i]!.turn === turn) return detail.turns[i];
  return undefined;
}

const countCalls = (detail: RunDetail) => detail.turns.reduce((n, t) => n + t.toolCalls.length, 0);

function drop(detail: RunDetail, what: "turns" | "toolCalls"): void {
  detail.dropped ??= { turns: 0, toolCalls: 0 };
  detail.dropped[what]++;
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The subagent id in a `subagent.spawn` result's excerpt ("Started subagent ID." or JSON with its `id`). */
function subagentIdOf(summary: string | undefined): string | undefined {
  if (!summary) return undefined;
  const m = /^Started subagent ([^\s]{1,128}?)\.(?:\s|$)/.exec(summary) ?? /"id"\s*:\s*"([^"]{1,128})"/.exec(summary);
  return m?.[1];
}
