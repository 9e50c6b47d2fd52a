/**
 * Test helpers (not shipped): MCP over Streamable HTTP by hand — `fetch` plus an SSE reader that waits on
 * events, never on time. Shared by the HTTP server tests, the serve proofs and the CLI's serve tests, which
 * need to see event ids, status codes and headers that an SDK client hides.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** Headers every protocol-correct POST carries. */
export const POST_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" } as const;

/** Extra `fetch` options (Bun's `tls` for HTTPS, a signal). */
export type FetchInit = RequestInit & { tls?: Record<string, unknown> };

/** POST a JSON-RPC value (or a raw string body). */
export function post(url: URL | string, body: unknown, headers: Record<string, string> = {}, init: FetchInit = {}): Promise<Response> {
  return fetch(url, {
    ...init,
    method: "POST",
    headers: { ...POST_HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** One JSON-RPC message read from an SSE event. */
export interface SseMessage {
  id: string | undefined;
  message: Record<string, any>;
}

/** Reads the SSE events of a response one at a time. */
export class SseReader {
  private readonly events: EventSourceMessage[] = [];
  private waiter: (() => void) | undefined;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  /** The last `retry:` value seen. */
  retry: number | undefined;
  ended = false;
  /** Why reading stopped, when it was not a clean end. */
  error: unknown;

  constructor(readonly response: Response) {
    if (!response.body) throw new Error(`response ${response.status} has no body`);
    const reader = response.body.getReader();
    this.reader = reader;
    const parser = createParser({
      onEvent: (e) => {
        this.events.push(e);
        this.wake();
      },
      onRetry: (r) => (this.retry = r),
    });
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch (e) {
        this.error = e;
      }
      this.ended = true;
      this.wake();
    })();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  /** The next event, or undefined once the stream has ended. */
  async next(): Promise<EventSourceMessage | undefined> {
    while (this.events.length === 0 && !this.ended) await new Promise<void>((r) => (this.waiter = r));
    return this.events.shift();
  }

  /** The next event with a JSON-RPC message (priming events, which carry no data, are skipped). */
  async nextMessage(): Promise<SseMessage | undefined> {
    for (;;) {
      const e = await this.next();
      if (!e) return undefined;
      if (e.data !== "") return { id: e.id, message: JSON.parse(e.data) };
    }
  }

  /** All remaining events until the stream ends. */
  async rest(): Promise<EventSourceMessage[]> {
    const out: EventSourceMessage[] = [];
    for (let e = await this.next(); e; e = await this.next()) out.push(e);
    return out;
  }

  /** Messages until the response to request `id` (inclusive); throws if the stream ends first. */
  async until(id: number | string): Promise<SseMessage[]> {
    const out: SseMessage[] = [];
    for (;;) {
      const m = await this.nextMessage();
      if (!m) throw new Error(`stream ended before the response to ${id} (got ${out.length} messages)`);
      out.push(m);
      if (m.message.id === id && m.message.method === undefined) return out;
    }
  }

  /** Drop the connection, like a network break. */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}
