/**
 * An SSE response body as an async sequence of `data` payloads, through the SDK's own SSE parser. A2A's
 * streaming methods send one JSON document per event (a JSON-RPC response, or a bare `StreamResponse` on
 * HTTP+JSON); the stream ends when the server closes it.
 */
import { createSseParser } from "../../wire/sse-parse.ts";

/** One event's data can be at most this large (a remote agent cannot exhaust our memory with one frame). */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Yield each event's `data` from an `text/event-stream` body until it ends. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const queue: string[] = [];
  let overflowed = false;
  const parser = createSseParser(
    { onEvent: (e) => queue.push(e.data), onOverflow: () => (overflowed = true) },
    { maxEventChars: MAX_EVENT_CHARS },
  );
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (overflowed) throw new Error(`an event of the stream exceeded ${MAX_EVENT_CHARS} characters`);
      while (queue.length) yield queue.shift() as string;
    }
    parser.feed(decoder.decode());
    while (queue.length) yield queue.shift() as string;
  } finally {
    // Leaving early (the caller stopped reading, or aborted) releases the connection.
    await reader.cancel().catch(() => {});
  }
}
