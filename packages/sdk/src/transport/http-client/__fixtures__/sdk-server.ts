/**
 * Test fixture: the official SDK's MCP server (`McpServer` + `WebStandardStreamableHTTPServerTransport`)
 * under `Bun.serve` on 127.0.0.1, one transport per session, with a tiny in-memory `EventStore` so streams
 * are resumable. Unknown session ids get 404, as the spec says.
 *
 * Tools: `echo {text}`; `steps {first, then}` sends `first` progress notifications, waits for the test to
 * call `release()`, sends `then` more, and returns; `close-stream {count}` sends `count` progress
 * notifications, closes its own SSE stream (the spec's polling), sends `count` more and returns;
 * `broadcast {count, tag}` sends `count` `notifications/message` unrelated to the request (GET stream).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport, type EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A minimal resumable event store: ids are `<stream>#<n>`, replay is per stream. */
export class MemoryEventStore implements EventStore {
  readonly events: Array<{ id: string; streamId: string; message: JSONRPCMessage }> = [];
  private n = 0;
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}#${++this.n}`;
    this.events.push({ id, streamId, message });
    return id;
  }
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }
  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, m: JSONRPCMessage) => Promise<void> }) {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    const streamId = this.events[at]?.streamId ?? "";
    for (const e of this.events.slice(at + 1)) {
      if (e.streamId === streamId && Object.keys(e.message).length > 0) await send(e.id, e.message);
    }
    return streamId;
  }
}

export interface SdkServerOptions {
  /** Answer requests with one JSON body instead of an SSE stream. */
  enableJsonResponse?: boolean;
  /** The `retry` (ms) the server puts in its priming events. */
  retryInterval?: number;
}

/** One started server; `stop()` closes every session and the listener. */
export interface SdkServer {
  url: string;
  port: number;
  /** Every request seen: method and the headers the tests look at. */
  requests: Array<{ method: string; session: string | null; version: string | null; lastEventId: string | null }>;
  sessions: Map<string, WebStandardStreamableHTTPServerTransport>;
  /** Let `steps` tools go on (one-shot). */
  release(): void;
  /** Forget every session (as a restarted server would). */
  forgetSessions(): Promise<void>;
  stop(): Promise<void>;
}

function buildServer(gate: () => Promise<void>): McpServer {
  const mcp = new McpServer({ name: "fixture", version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  const tools = [
    { name: "echo", inputSchema: { type: "object" as const, properties: { text: { type: "string" } } } },
    { name: "steps", inputSchema: { type: "object" as const } },
    { name: "close-stream", inputSchema: { type: "object" as const } },
    { name: "broadcast", inputSchema: { type: "object" as const } },
  ];
  mcp.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    const token = req.params._meta?.progressToken ?? 0;
    let n = 0;
    const progress = async (count: number) => {
      for (let i = 0; i < count; i++)
        await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ++n } });
    };
    if (req.params.name === "echo") return { content: [{ type: "text", text: String(args.text) }] };
    if (req.params.name === "steps") {
      await progress(Number(args.first ?? 3));
      await gate();
      await progress(Number(args.then ?? 3));
      return { content: [{ type: "text", text: `done after ${n}` }] };
    }
    if (req.params.name === "close-stream") {
      await progress(Number(args.count ?? 2));
      extra.closeSSEStream?.();
      await progress(Number(args.count ?? 2));
      return { content: [{ type: "text", text: `done after ${n}` }] };
    }
    if (req.params.name === "broadcast") {
      // No relatedRequestId: these go to the standalone GET stream (or the event store while it is away).
      for (let i = 0; i < Number(args.count ?? 1); i++)
        await mcp.server.notification({ method: "notifications/message", params: { level: "info", data: `${args.tag}-${i}` } });
      return { content: [{ type: "text", text: "sent" }] };
    }
    return { content: [{ type: "text", text: "unknown tool" }], isError: true };
  });
  return mcp;
}

/**
 * Bun.serve sends no headers until the first body byte (shared/NOTES.md), and the SDK's GET stream writes
 * nothing until its first keep-alive: put a comment in front so the client sees the stream open at once.
 * Cancelling the wrapper cancels the original, so the server still notices a client that went away.
 */
function primeSse(res: Response): Response {
  if (!res.body || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res;
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(new TextEncoder().encode(": open\n\n")),
    async pull(c) {
      try {
        const { value, done } = await reader.read();
        if (done) c.close();
        else c.enqueue(value);
      } catch (e) {
        c.error(e);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

const notFound = () => Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });

/** Start the fixture server on 127.0.0.1 with an ephemeral port. */
export async function startSdkServer(options: SdkServerOptions = {}): Promise<SdkServer> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const requests: SdkServer["requests"] = [];
  let open: () => void = () => {};
  const gateOpen = new Promise<void>((r) => (open = r)); // one-shot: release() lets every waiting tool go on
  const gate = () => gateOpen;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // SSE streams stay quiet for long stretches
    async fetch(req) {
      const h = req.headers;
      requests.push({
        method: req.method,
        session: h.get("mcp-session-id"),
        version: h.get("mcp-protocol-version"),
        lastEventId: h.get("last-event-id"),
      });
      const sid = h.get("mcp-session-id");
      if (sid !== null) {
        const transport = sessions.get(sid);
        if (!transport) return notFound();
        const res = await transport.handleRequest(req);
        return req.method === "GET" ? primeSse(res) : res;
      }
      if (req.method !== "POST") return new Response("session required", { status: 400 });
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        eventStore: new MemoryEventStore(),
        enableJsonResponse: options.enableJsonResponse ?? false,
        retryInterval: options.retryInterval,
        onsessioninitialized: (id) => void sessions.set(id, transport),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      await buildServer(gate).connect(transport);
      return transport.handleRequest(req);
    },
  });
  const forgetSessions = async () => {
    const all = [...sessions.values()];
    sessions.clear();
    await Promise.all(all.map((t) => t.close()));
  };
  return {
    url: `http://127.0.0.1:${server.port}/mcp`,
    port: server.port!,
    requests,
    sessions,
    release: () => open(),
    forgetSessions,
    stop: async () => {
      open();
      await forgetSessions();
      await server.stop(true);
    },
  };
}
