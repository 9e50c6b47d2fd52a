/**
 * The growth policy: a conversation that outgrows its bound loses its oldest whole turns. A turn begins at
 * a user message and runs to the next one, so a cut never separates a tool call from its result (both sit
 * between two user messages) and never edits a message — signed reasoning blocks go back to the provider
 * exactly as it sent them, or not at all. The newest turn is always kept.
 *
 * Size is counted as the model counts: the conversation remembers the tokens the gateway reported for its
 * last request (input plus output) and how many messages that request covered; messages added since are
 * scaled from their JSON size at the ratio that request showed. Only a conversation the model never saw
 * (no usage yet) is estimated from characters alone, at 4 bytes a token. The system prompt and the tool
 * definitions are in the reported count, so the bound covers the whole request, approximately.
 */
import type { ModelMessage } from "../../model/language-model.ts";

/** Bounds of one conversation sent to the model. */
export interface TrimBounds {
  /** Tokens the conversation may take in a request (counted as above). */
  maxTokens: number;
  /** JSON bytes it may take as stored. */
  maxBytes?: number;
}

/** What the model reported for the conversation's last request (see `Conversation.tokens`). */
export interface TokenCount {
  count: number;
  messages: number;
}

/** What {@link trimConversation} kept. */
export interface Trimmed {
  messages: ModelMessage[];
  /** Messages dropped from the front. */
  dropped: number;
  /** The estimated tokens of what is kept. */
  tokens: number;
}

/** Bytes per token when the model has not counted yet. */
const BYTES_PER_TOKEN = 4;

/**
 * JSON bytes of each message, kept by identity: a continued conversation is cut at load and again at every
 * save, and its messages are never changed once in it (the loop appends new ones), so each is serialised
 * to be measured once, not at every save of the run.
 */
const measured = new WeakMap<ModelMessage, number>();

/** The JSON bytes of `message` as stored (see `measured`). */
export function messageBytes(message: ModelMessage): number {
  let bytes = measured.get(message);
  if (bytes === undefined) measured.set(message, (bytes = Buffer.byteLength(JSON.stringify(message))));
  return bytes;
}

/** The indexes where a turn starts (every user message). */
function turnStarts(messages: readonly ModelMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((m, i) => m.role === "user" && starts.push(i));
  return starts;
}

/** Drop the oldest whole turns until the conversation is within `bounds` (see the module header). */
export function trimConversation(messages: readonly ModelMessage[], bounds: TrimBounds, counted?: TokenCount): Trimmed {
  // Prefix sums of the messages' sizes: any range's bytes in one subtraction.
  const sum = [0];
  for (const m of messages) sum.push(sum.at(-1)! + messageBytes(m));
  const bytes = (from: number, to: number) => sum[to]! - sum[from]!;
  const covered = counted ? Math.min(counted.messages, messages.length) : 0;
  const coveredBytes = bytes(0, covered);
  const ratio = counted && coveredBytes > 0 ? counted.count / coveredBytes : 1 / BYTES_PER_TOKEN;
  const base = counted && coveredBytes > 0 ? counted.count : 0;
  const tokensFrom = (start: number): number => {
    // Reported tokens for what the request covered (less the dropped part, scaled), estimated for the rest.
    const droppedCovered = bytes(0, Math.min(start, covered));
    const after = bytes(Math.max(start, covered), messages.length);
    return Math.max(0, Math.round(base - droppedCovered * ratio + after * ratio));
  };
  const bytesFrom = (start: number): number => bytes(start, messages.length);
  const fits = (start: number) =>
    tokensFrom(start) <= bounds.maxTokens && (bounds.maxBytes === undefined || bytesFrom(start) <= bounds.maxBytes);
  const starts = turnStarts(messages);
  // Cut points: where a turn starts; the newest turn is kept whatever its size.
  let start = starts[0] ?? 0;
  for (const s of starts) {
    start = s;
    if (fits(s)) break;
  }
  return { messages: messages.slice(start), dropped: start, tokens: tokensFrom(start) };
}
