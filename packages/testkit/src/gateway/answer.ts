/**
 * What a gateway answers, before any dialect shapes it: text, tool calls with ids, a finish reason in the
 * dialect's own words, and usage. Also the deterministic pieces every dialect shares: ids, token estimates,
 * and splitting text into stream deltas.
 */
import type { CacheUsage } from "./prompt-cache.ts";
import type { NormalizedMessage, TextTurn, ToolCallsTurn } from "./types.ts";

/** A tool call to render. `id` is absent only where the dialect has none to give (Gemini, unless scripted). */
export interface AnswerToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A scripted answer resolved for one request. */
export interface Answer {
  text: string;
  toolCalls: AnswerToolCall[];
  /** Finish reason in the dialect's own words. */
  finishReason: string;
  /** Reasoning served before the answer, if any. */
  reasoning?: string;
  /** Anthropic: serve a `redacted_thinking` block too. */
  redactedReasoning?: boolean;
  /**
   * `input` includes the cache split (`cacheRead`, `cacheWrite`); `output` is the answer alone, the
   * dialects add `reasoning` where their output count includes it.
   */
  usage: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
}

/** What the request adds to a turn: its size, the cache model's verdict, whether it asked for thinking. */
export interface AnswerContext {
  /** Characters of the whole prompt (tools, system, messages); default: the conversation's text. */
  promptChars?: number;
  cache?: CacheUsage;
  /** The request turned thinking on: reasoning is served even when the turn scripts none. */
  thinking?: boolean;
}

/** Reasoning served when a request asks for thinking and the turn scripts none. */
export const DEFAULT_REASONING = "Working out what the request needs before answering.";

/** Each dialect's words for the portable finish reasons. */
export interface FinishWords {
  stop: string;
  length: string;
  content_filter: string;
  tool_calls: string;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random id with a provider-style prefix, e.g. `randomId("toolu_01", 22)`. */
export function randomId(prefix: string, length = 24): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let id = prefix;
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

/** About four characters a token, at least one: deterministic and close enough for budgets in tests. */
export const estimateTokens = (chars: number): number => Math.max(1, Math.ceil(chars / 4));

/** Characters of everything the client sent in its conversation. */
export function conversationChars(messages: readonly NormalizedMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.text.length;
    for (const call of message.toolCalls) chars += call.name.length + JSON.stringify(call.arguments ?? {}).length;
    for (const result of message.toolResults) chars += result.content.length;
  }
  return chars;
}

/** Resolve a text or tool-call turn into an answer for one request. */
export function toAnswer(
  turn: TextTurn | ToolCallsTurn,
  words: FinishWords,
  messages: readonly NormalizedMessage[],
  makeId: (() => string) | undefined,
  context: AnswerContext = {},
): Answer {
  const text = turn.text ?? "";
  const toolCalls: AnswerToolCall[] =
    "toolCalls" in turn
      ? turn.toolCalls.map((call) => {
          const id = call.id ?? makeId?.();
          return id === undefined ? { name: call.name, arguments: call.arguments } : { id, name: call.name, arguments: call.arguments };
        })
      : [];
  const requested = "finishReason" in turn ? turn.finishReason : undefined;
  const finishReason =
    toolCalls.length > 0 ? words.tool_calls : requested === undefined ? words.stop : (words[requested as keyof FinishWords] ?? requested);
  const outputChars = text.length + toolCalls.reduce((n, call) => n + call.name.length + JSON.stringify(call.arguments).length, 0);
  const reasoning = turn.reasoning ?? (context.thinking ? DEFAULT_REASONING : undefined);
  const input = turn.usage?.input ?? estimateTokens(context.promptChars ?? conversationChars(messages));
  const cacheRead = Math.min(context.cache?.read ?? 0, input);
  const answer: Answer = {
    text,
    toolCalls,
    finishReason,
    usage: {
      input,
      output: turn.usage?.output ?? estimateTokens(outputChars),
      reasoning: turn.usage?.reasoning ?? (reasoning === undefined ? 0 : estimateTokens(reasoning.length)),
      cacheRead,
      cacheWrite: Math.min(context.cache?.write ?? 0, input - cacheRead),
    },
  };
  if (reasoning !== undefined) answer.reasoning = reasoning;
  if (turn.redactedReasoning) answer.redactedReasoning = true;
  return answer;
}

/**
 * Split a string into up to `pieces` non-empty parts on code-point boundaries, the way providers deliver
 * deltas: concatenating the parts gives the string back. An empty string gives no parts.
 */
export function splitPieces(value: string, pieces = 3): string[] {
  const points = Array.from(value);
  if (points.length === 0) return [];
  const size = Math.ceil(points.length / Math.min(pieces, points.length));
  const parts: string[] = [];
  for (let start = 0; start < points.length; start += size) parts.push(points.slice(start, start + size).join(""));
  return parts;
}
