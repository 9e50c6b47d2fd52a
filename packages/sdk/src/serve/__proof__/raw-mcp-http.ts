/**
 * Proof helpers (not exported from the package): MCP over Streamable HTTP by hand, with `fetch` and an SSE
 * reader that waits on events, never on time. Used by the serve proofs here and by the CLI's `agentd serve`
 * tests, which need to see event ids, status codes and headers that an SDK client hides.
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

/** Reads the SSE events of a response one at a time. */
export class SseReader {
  private readonly events: EventSourceMessage[] = [];
  private waiter: (() => void) | undefined;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  ended = false;

  constructor(readonly response: Response) {
    if (!response.body) throw new Error(`response ${response.status} has no body`);
    const reader = response.body.getReader();
    this.reader = reader;
    const parser = createParser({
      onEvent: (e) => {
        this.events.push(e);
        this.wake();
      },
    });
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // A cancelled or broken stream simply ends.
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
  async nextMessage(): Promise<{ id: string | undefined; message: Record<string, any> } | undefined> {
    for (;;) {
      const e = await this.next();
      if (!e) return undefined;
      if (e.data !== "") return { id: e.id, message: JSON.parse(e.data) };
    }
  }

  /** Messages until the response to request `id` (inclusive); throws if the stream ends first. */
  async until(id: number | string): Promise<{ id: string | undefined; message: Record<string, any> }[]> {
    const out: { id: string | undefined; message: Record<string, any> }[] = [];
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

/** An `initialize` request. */
export const initializeRequest = (id: number | string = 0, protocolVersion = "2025-11-25") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "serve-proof", version: "0.0.0" } },
});

/** A JSON-RPC request. */
export const request = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, method, params });

/** An open session: its id and the headers every later request carries. */
export interface RawSession {
  sessionId: string;
  headers: Record<string, string>;
  initializeResult: Record<string, any>;
}

/** initialize + notifications/initialized. Throws with the status when the server refuses. */
export async function openSession(url: URL | string, headers: Record<string, string> = {}, init: FetchInit = {}): Promise<RawSession> {
  const res = await post(url, initializeRequest(), headers, init);
  if (res.status !== 200) throw new Error(`initialize: HTTP ${res.status} ${await res.text()}`);
  const sessionId = res.headers.get("mcp-session-id");
  if (!sessionId) throw new Error("initialize: no Mcp-Session-Id");
  const [answer] = await new SseReader(res).until(0);
  const initializeResult = answer!.message.result as Record<string, any>;
  const sessionHeaders = { ...headers, "mcp-session-id": sessionId, "mcp-protocol-version": String(initializeResult.protocolVersion) };
  const ack = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders, init);
  if (ack.status !== 202) throw new Error(`notifications/initialized: HTTP ${ack.status}`);
  return { sessionId, headers: sessionHeaders, initializeResult };
}

/** Send one request on a session and read its SSE stream to the response. */
export async function call(url: URL | string, s: RawSession, id: number | string, method: string, params: Record<string, unknown> = {}, init: FetchInit = {}) {
  const res = await post(url, request(id, method, params), s.headers, init);
  if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status} ${await res.text()}`);
  const messages = await new SseReader(res).until(id);
  return { response: messages.at(-1)!.message, messages };
}

/** End a session with DELETE; resolves to the status. */
export async function endSession(url: URL | string, s: RawSession, init: FetchInit = {}): Promise<number> {
  const res = await fetch(url, { ...init, method: "DELETE", headers: s.headers });
  await res.body?.cancel();
  return res.status;
}
