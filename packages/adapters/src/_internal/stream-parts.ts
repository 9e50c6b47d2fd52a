/**
 * Building blocks every dialect's stream decoder uses to emit our stream parts in the one order the loop
 * expects: `text-start`/`text-delta`/`text-end`, `tool-call-start`/`tool-call-delta`/`tool-call-end` then
 * the complete `tool-call`, and `finish` last.
 */
import type { AgentdError, ModelStreamPart } from "@agentd/sdk/model";
import { parseToolInput } from "./tool-input.ts";
import type { SseEvent } from "./sse.ts";
import { providerMessage, scrub, upstreamError } from "./upstream-error.ts";

/** Opens a text block on the first delta and closes it on demand; ids are `text-0`, `text-1`, … */
export class TextBlock {
  #open: string | undefined;
  #count = 0;

  /** Parts for one text delta (empty deltas emit nothing). */
  delta(text: string | undefined): ModelStreamPart[] {
    if (!text) return [];
    const out: ModelStreamPart[] = [];
    if (this.#open === undefined) {
      this.#open = `text-${this.#count++}`;
      out.push({ type: "text-start", id: this.#open });
    }
    out.push({ type: "text-delta", id: this.#open, delta: text });
    return out;
  }

  /**
   * Close the open block, if any. A `signature` (Gemini's, for the text just closed) rides on the
   * `text-end`; with no block open it still goes out, on an empty text part of its own.
   */
  end(signature?: string): ModelStreamPart[] {
    if (this.#open === undefined) return signature === undefined ? [] : [{ type: "text-end", id: `text-${this.#count++}`, signature }];
    const id = this.#open;
    this.#open = undefined;
    return [signature === undefined ? { type: "text-end", id } : { type: "text-end", id, signature }];
  }
}

/** `tool-call-end` and the complete `tool-call` for accumulated argument text. */
export function finishToolCall(id: string, toolName: string, argumentText: string): ModelStreamPart[] {
  return [
    { type: "tool-call-end", id },
    { type: "tool-call", toolCallId: id, toolName, input: parseToolInput(argumentText) },
  ];
}

/** Parse one SSE `data:` payload as JSON, or fail with a typed, non-retryable error naming the chunk. */
export function parseChunk(provider: string, event: SseEvent, secrets: readonly string[]): unknown {
  try {
    return JSON.parse(event.data) as unknown;
  } catch (cause) {
    throw upstreamError(provider, `malformed stream chunk: ${event.data.slice(0, 200)}`, secrets, {
      retryable: false,
      cause,
    });
  }
}

/** An error the provider reported inside the stream (HTTP status was already 200). */
export function streamError(provider: string, error: unknown, secrets: readonly string[], retryable = false): AgentdError {
  const detail = scrub(providerMessage(JSON.stringify({ error })), secrets);
  return upstreamError(provider, `error in stream: ${detail}`, secrets, { retryable });
}

/** The stream closed before the provider said it was finished (a dropped connection, usually). */
export const endedEarly = (provider: string, secrets: readonly string[]) =>
  upstreamError(provider, "stream ended before the response was complete", secrets, { retryable: true });
