/**
 * Helpers for writing scripts: builders for common turns, a guard that tells a turn from a typo
 * (scripts also come from JSON files), and `textOf` to read the text a turn would answer with.
 */
import type { DynamicTurn, RecordedRequest, StaticTurn, TextTurn, ToolCallSpec, ToolCallsTurn, Turn } from "./types.ts";

/** A text answer. */
export const textTurn = (text: string, options: Omit<TextTurn, "text"> = {}): TextTurn => ({ text, ...options });

/** One tool call per argument; several make a parallel tool-call turn. */
export const toolCallTurn = (...toolCalls: ToolCallSpec[]): ToolCallsTurn => ({ toolCalls });

/**
 * A dynamic turn answering with the most recent tool result the client sent,
 * formatted by `format` (default: the result itself). Answers "(no tool result)" when there is none.
 */
export const echoLastToolResult =
  (format: (result: string, request: RecordedRequest) => string = (result) => result): DynamicTurn =>
  (request) => ({ text: format(request.lastToolResult ?? "(no tool result)", request) });

/** The text a static turn answers with ("" for faults and tool calls without text); undefined for a dynamic turn. */
export function textOf(turn: Turn): string | undefined {
  if (typeof turn === "function") return undefined;
  return "text" in turn && typeof turn.text === "string" ? turn.text : "";
}

const FAULTS = new Set(["rate-limit", "server-error", "malformed-chunk", "stall", "disconnect"]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isUsage = (value: unknown): boolean =>
  value === undefined ||
  (isPlainObject(value) &&
    (value.input === undefined || (Number.isInteger(value.input) && (value.input as number) >= 0)) &&
    (value.output === undefined || (Number.isInteger(value.output) && (value.output as number) >= 0)) &&
    (value.reasoning === undefined || (Number.isInteger(value.reasoning) && (value.reasoning as number) >= 0)));

const isToolCall = (value: unknown): value is ToolCallSpec =>
  isPlainObject(value) &&
  typeof value.name === "string" &&
  value.name.length > 0 &&
  isPlainObject(value.arguments) &&
  (value.id === undefined || (typeof value.id === "string" && value.id.length > 0));

/** Why `value` is not a turn, or undefined when it is one. */
export function turnProblem(value: unknown): string | undefined {
  if (typeof value === "function") return undefined;
  if (!isPlainObject(value)) return "a turn must be an object or a function";
  if (value.echo !== undefined) return value.echo === "headers" ? undefined : 'echo must be "headers"';
  if (typeof value.fault === "string") {
    if (!FAULTS.has(value.fault)) return `unknown fault "${value.fault}" (expected one of ${[...FAULTS].join(", ")})`;
    if (value.retryAfterSeconds !== undefined && !(typeof value.retryAfterSeconds === "number" && value.retryAfterSeconds >= 0))
      return "retryAfterSeconds must be a number >= 0";
    if (
      value.status !== undefined &&
      !(Number.isInteger(value.status) && (value.status as number) >= 500 && (value.status as number) <= 599)
    )
      return "status must be an integer 500-599";
    return undefined;
  }
  if (!isUsage(value.usage)) return "usage must be { input?: integer >= 0, output?: integer >= 0, reasoning?: integer >= 0 }";
  if (value.reasoning !== undefined && typeof value.reasoning !== "string") return "reasoning must be a string";
  if (value.redactedReasoning !== undefined && typeof value.redactedReasoning !== "boolean") return "redactedReasoning must be a boolean";
  if (value.toolCalls !== undefined) {
    if (!Array.isArray(value.toolCalls) || value.toolCalls.length === 0) return "toolCalls must be a non-empty array";
    const bad = value.toolCalls.findIndex((call) => !isToolCall(call));
    if (bad >= 0) return `toolCalls[${bad}] must be { name: string, arguments: object, id?: string }`;
    if (value.text !== undefined && typeof value.text !== "string") return "text must be a string";
    return undefined;
  }
  if (typeof value.text !== "string") return 'a turn needs "text", "toolCalls" or "fault"';
  if (value.finishReason !== undefined && typeof value.finishReason !== "string") return "finishReason must be a string";
  return undefined;
}

/** Whether `value` is a usable turn. */
export const isTurn = (value: unknown): value is Turn => turnProblem(value) === undefined;

/** A static turn, checked (dynamic turns return these too). */
export function checkStaticTurn(value: unknown): StaticTurn {
  const problem = typeof value === "function" ? "a dynamic turn must return a static turn" : turnProblem(value);
  if (problem !== undefined) throw new TypeError(`fake gateway: invalid turn: ${problem}`);
  return value as StaticTurn;
}
