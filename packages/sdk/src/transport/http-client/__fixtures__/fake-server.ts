/**
 * Test fixture: a scriptable HTTP endpoint on 127.0.0.1 (Bun.serve, ephemeral port) for edge cases the
 * real servers do not produce on demand, plus a handle on SSE responses the script writes by hand.
 */

/** One request as the fake server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** An SSE response body the test writes to. */
export interface SseHandle {
  response: Response;
  write(text: string): void;
  /** A JSON-RPC message as one `message` event, with an optional id. */
  send(message: unknown, id?: string): void;
  end(): void;
  /** Called when the client goes away (cancels the body). */
  oncancel?: () => void;
}

/** A started fake server. */
export interface FakeServer {
  url: string;
  origin: string;
  requests: SeenRequest[];
  stop(): Promise<void>;
}

export type FakeHandler = (req: SeenRequest, n: number) => Response | Promise<Response>;

/** Start a server whose every request goes to `handler` (n counts requests from 0). */
export function startFakeServer(handler: FakeHandler, path = "/mcp"): FakeServer {
  const requests: SeenRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const text = req.method === "POST" ? await req.text() : "";
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the text
      }
      const seen: SeenRequest = {
        method: req.method,
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers.entries()),
        body,
      };
      requests.push(seen);
      return handler(seen, requests.length - 1);
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return { url: `${origin}${path}`, origin, requests, stop: () => server.stop(true) };
}

/** An SSE response whose body the test writes. A comment goes out first: Bun.serve sends headers only then. */
export function sse(headers: Record<string, string> = {}): SseHandle {
  const encoder = new TextEncoder();
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (ctrl = c),
    cancel: () => {
      ended = true;
      handle.oncancel?.();
    },
  });
  const handle: SseHandle = {
    response: new Response(body, { headers: { "content-type": "text/event-stream", ...headers } }),
    write(text) {
      if (!ended) ctrl.enqueue(encoder.encode(text));
    },
    send(message, id) {
      handle.write(`event: message\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`);
    },
    end() {
      if (ended) return;
      ended = true;
      ctrl.close();
    },
  };
  handle.write(": hello\n\n");
  return handle;
}

/** A JSON-RPC result for request `id`. */
export const result = (id: unknown, value: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id, result: value });

/** The answer a minimal server gives to initialize, with a session id. */
export const initialized = (id: unknown, session = "sess-1") =>
  Response.json(result(id, { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "fake", version: "0" } }), {
    headers: { "mcp-session-id": session },
  });
