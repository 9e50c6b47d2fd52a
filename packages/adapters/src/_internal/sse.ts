/**
 * Provider response bodies as an async sequence of SSE events, over the SDK's spec-exact push parser
 * (`createSseParser`, wire/sse-parse.ts). What this adds for LLM streams: byte decoding, an activity
 * hook per chunk (the caller's idle timeout), cancelling the body when the consumer stops early, a bound
 * on one event's size and (given `bound`) on the bytes of the whole stream, and one leniency: an event cut off without its blank line is still delivered at
 * the end, because some gateways close the stream right after the last `data:` line.
 */
import { bodyTooLarge, createSseParser, type BodyBound, type SseEvent } from "@agentd/sdk/model";

export type { SseEvent };

/** One provider event above this many characters is treated as a broken stream. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/** Thrown when one event outgrows {@link MAX_EVENT_CHARS}. */
export class SseOverflowError extends Error {
  override name = "SseOverflowError";
}

/**
 * Read events from a response body. `onChunk` runs for every chunk of bytes read; past `bound.limit` bytes
 * in all, the read stops, the body is cancelled (the connection closed) and `bodyTooLarge` is thrown.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, onChunk?: () => void, bound?: BodyBound): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseEvent[] = [];
  let overflow = false;
  const parser = createSseParser(
    {
      onEvent: (e) => ready.push(e),
      onOverflow: () => {
        overflow = true;
      },
    },
    { maxEventChars: MAX_EVENT_CHARS },
  );
  let finished = false;
  let bytes = 0;
  try {
    while (!finished) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        // Flush the decoder, then end any event left open (a no-op after a proper blank line).
        parser.feed(`${decoder.decode()}\n\n`);
      } else {
        onChunk?.();
        bytes += value.byteLength;
        if (bound && bytes > bound.limit) throw bodyTooLarge(bound);
        parser.feed(decoder.decode(value, { stream: true }));
      }
      if (overflow) throw new SseOverflowError(`an event exceeded ${MAX_EVENT_CHARS} characters`);
      while (ready.length > 0) yield ready.shift() as SseEvent;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
