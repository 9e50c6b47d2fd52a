/**
 * Test fixture: a minimal server end of a Streamable HTTP session, as a `Transport`, so the shared
 * transport cases can pair it with the client transport. One session (`fixture-session`), handled
 * internally through initialize; afterwards every POSTed message goes to `onmessage`.
 *
 * Where `send` puts a message: a response to a pending request goes on that request's SSE stream; anything
 * else on the GET stream. Messages on two streams travel on two connections, so to keep the suite's
 * "in order" promise `send` of a response resolves only once the client has read it (our client cancels a
 * response stream as soon as its response arrived; a 5 s fallback ends it otherwise).
 */
import { AgentdError } from "../../../wire/errors.ts";
import type { JsonRpcMessage, RequestId } from "../../../wire/jsonrpc.ts";
import type { FrameError, MessageExtra, Transport } from "../../types.ts";
import { sse, type SseHandle } from "./fake-server.ts";

const SESSION = "fixture-session";

export class FixtureServerEnd implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onframeerror?: (error: FrameError) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly sessionId = SESSION;
  readonly url: string;
  private started = false;
  private closed = false;
  private standalone: SseHandle | undefined;
  private readonly pending = new Map<RequestId, { stream: SseHandle; read: Promise<void> }>();
  private readonly server: ReturnType<typeof Bun.serve>;

  constructor() {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, idleTimeout: 0, fetch: (req) => this.handle(req) });
    this.url = `http://127.0.0.1:${this.server.port}/mcp`;
  }

  async start(): Promise<void> {
    if (this.started) throw new AgentdError("E_TRANSPORT", "FixtureServerEnd already started");
    this.started = true;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) throw new AgentdError("E_CONNECTION_CLOSED", "server end is closed");
    const id = (message as { id?: RequestId }).id;
    const isResponse = "result" in message || "error" in message;
    const pending = isResponse && id !== undefined ? this.pending.get(id) : undefined;
    if (pending) {
      this.pending.delete(id!);
      pending.stream.send(message);
      await pending.read;
      return;
    }
    if (!this.standalone) throw new AgentdError("E_CONNECTION_CLOSED", "no GET stream to push on");
    this.standalone.send(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.standalone?.end();
    for (const p of this.pending.values()) p.stream.end();
    this.onclose?.();
  }

  /** Stop listening (after close). */
  async stop(): Promise<void> {
    await this.close();
    await this.server.stop(true);
  }

  private async handle(req: Request): Promise<Response> {
    if (this.closed)
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
    const body = req.method === "POST" ? ((await req.json()) as { id?: RequestId; method?: string }) : undefined;
    if (body?.method === "initialize") {
      const res = { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "fixture-end", version: "0" } };
      return Response.json({ jsonrpc: "2.0", id: body.id, result: res }, { headers: { "mcp-session-id": SESSION } });
    }
    if (req.headers.get("mcp-session-id") !== SESSION) return new Response("session required", { status: 400 });
    if (req.method === "DELETE") {
      await this.close();
      return new Response(null, { status: 200 });
    }
    if (req.method === "GET") {
      this.standalone = sse();
      return this.standalone.response;
    }
    if (body?.method === "notifications/initialized") return new Response(null, { status: 202 });
    if (body?.method !== undefined && body.id !== undefined) {
      const stream = sse();
      const read = new Promise<void>((resolve) => {
        const fallback = setTimeout(() => {
          stream.end();
          resolve();
        }, 5000);
        stream.oncancel = () => {
          clearTimeout(fallback);
          resolve();
        };
      });
      this.pending.set(body.id, { stream, read });
      queueMicrotask(() => this.onmessage?.(body, { sessionId: SESSION }));
      return stream.response;
    }
    queueMicrotask(() => this.onmessage?.(body, { sessionId: SESSION }));
    return new Response(null, { status: 202 });
  }
}
