/**
 * Test helpers for the HTTP server tests (not exported): a minimal MCP-ish responder that sits behind each
 * per-session transport, and a raw SSE reader over `fetch` responses.
 */
import { post, SseReader } from "@agentd/test-support/raw-http";
import type { MessageExtra, Transport } from "../../types.ts";

export { POST_HEADERS, post, SseReader } from "@agentd/test-support/raw-http";

/** What the responder saw in one session. */
export interface ResponderSession {
  transport: Transport;
  received: { message: Record<string, unknown>; extra: MessageExtra | undefined }[];
  closed: Promise<void>;
  isClosed: boolean;
}

/**
 * A tiny MCP server stand-in: answers `initialize`, `ping`, `tools/list` and `tools/call` (tools `echo`,
 * `slow` — held until `release()` — and `chatty`, which sends a related notification first).
 */
export function createResponder() {
  const sessions: ResponderSession[] = [];
  const held: (() => void)[] = [];
  let onHeld: (() => void) | undefined;

  function onsession(transport: Transport): Promise<void> {
    let resolveClosed!: () => void;
    const s: ResponderSession = {
      transport,
      received: [],
      closed: new Promise((r) => (resolveClosed = r)),
      isClosed: false,
    };
    sessions.push(s);
    transport.onclose = () => {
      s.isClosed = true;
      resolveClosed();
    };
    transport.onmessage = (value, extra) => {
      const m = value as Record<string, unknown> & { id?: string | number; method?: string; params?: Record<string, unknown> };
      s.received.push({ message: m, extra });
      if (m.id === undefined || typeof m.method !== "string") return;
      const id = m.id;
      const reply = (result: Record<string, unknown>) => void transport.send({ jsonrpc: "2.0", id, result });
      switch (m.method) {
        case "initialize": {
          const asked = m.params?.protocolVersion;
          const known = ["2025-11-25", "2025-06-18", "2025-03-26"];
          if (m.params?.protocolVersion === "fail") {
            void transport.send({ jsonrpc: "2.0", id, error: { code: -32602, message: "bad initialize" } });
            return;
          }
          return reply({
            protocolVersion: typeof asked === "string" && known.includes(asked) ? asked : "2025-11-25",
            capabilities: { tools: { listChanged: true }, logging: {} },
            serverInfo: { name: "test-responder", version: "0.0.0" },
          });
        }
        case "ping":
          return reply({});
        case "tools/list":
          return reply({
            tools: ["echo", "slow", "chatty"].map((name) => ({
              name,
              description: `${name} tool`,
              inputSchema: { type: "object", properties: { text: { type: "string" } } },
            })),
          });
        case "tools/call": {
          const name = m.params?.name;
          const text = String((m.params?.arguments as { text?: unknown } | undefined)?.text ?? "");
          const result = { content: [{ type: "text", text }] };
          if (name === "slow") {
            held.push(() => reply(result));
            onHeld?.();
            return;
          }
          if (name === "chatty")
            void transport.send(
              { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: `about ${text}` } },
              { relatedRequestId: id },
            );
          return reply(result);
        }
        default:
          void transport.send({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${m.method}` } });
      }
    };
    return transport.start();
  }

  return {
    onsession,
    sessions,
    /** Resolves once `n` `slow` calls are being held. */
    heldCount(n: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (held.length >= n) {
            onHeld = undefined;
            resolve();
          }
        };
        onHeld = check;
        check();
      });
    },
    /** Answer every held `slow` call. */
    release(): void {
      for (const f of held.splice(0)) f();
    },
  };
}

/** An `initialize` request. */
export const initializeRequest = (id: number | string = 0, protocolVersion = "2025-11-25") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw-test", version: "0" } },
});

/**
 * Open a session the raw way: POST initialize (SSE answer), then notifications/initialized.
 * Returns the session id and the headers later requests need.
 */
export async function openSession(
  url: URL,
  extraHeaders: Record<string, string> = {},
  protocolVersion = "2025-11-25",
  init: RequestInit = {},
) {
  const res = await post(url, initializeRequest(0, protocolVersion), extraHeaders, init);
  if (res.status !== 200) throw new Error(`initialize answered ${res.status}: ${await res.text()}`);
  const sessionId = res.headers.get("mcp-session-id");
  if (!sessionId) throw new Error("no Mcp-Session-Id on the initialize response");
  const ct = res.headers.get("content-type") ?? "";
  const result = ct.startsWith("text/event-stream") ? (await new SseReader(res).nextMessage())?.message : await res.json();
  const headers = { ...extraHeaders, "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion };
  const ack = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers, init);
  if (ack.status !== 202) throw new Error(`initialized answered ${ack.status}`);
  return { sessionId, headers, result };
}

/** A tools/call request. */
export const callTool = (id: number | string, name: string, text = "hi") => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: { text } },
});
