/**
 * Opening MCP sessions over the raw client: `initialize`, then `notifications/initialized`, as any
 * Streamable HTTP client does; and reading JSON-RPC messages out of a JSON or SSE response body.
 */
import type { RawConnection, RawResponse } from "./raw-http.ts";

/** The protocol revision the benchmark speaks. */
export const PROTOCOL_VERSION = "2025-11-25";
/** Headers every POST carries. */
export const POST_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
});
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

/** The JSON-RPC messages in a response: its JSON body, or the `data:` of each SSE event. */
export function messagesIn(r: RawResponse): Array<Record<string, unknown>> {
  if ((r.headers["content-type"] ?? "").startsWith("text/event-stream")) {
    return r.body
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim())
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  return r.body ? [JSON.parse(r.body) as Record<string, unknown>] : [];
}

/** Headers of a request inside session `sid`. */
export const sessionHeaders = (sid: string): Record<string, string> => ({
  "Mcp-Session-Id": sid,
  "MCP-Protocol-Version": PROTOCOL_VERSION,
});

/** Initialize one session on `conn`; resolves with its id. */
export async function openSession(conn: RawConnection, path = "/mcp"): Promise<string> {
  const r = await conn.request("POST", path, POST_HEADERS, INITIALIZE);
  const sid = r.headers["mcp-session-id"];
  const result = messagesIn(r)[0]?.result as { protocolVersion?: string } | undefined;
  if (r.status !== 200 || !sid || result?.protocolVersion !== PROTOCOL_VERSION)
    throw new Error(`initialize answered ${r.status}: ${r.body.slice(0, 300)}`);
  const r2 = await conn.request("POST", path, { ...POST_HEADERS, ...sessionHeaders(sid) }, INITIALIZED);
  if (r2.status !== 202) throw new Error(`notifications/initialized answered ${r2.status}: ${r2.body.slice(0, 300)}`);
  return sid;
}

/** The body of the echo tools/call with JSON-RPC id `id`. */
export const toolsCall = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`;

/** Whether a response is the echo's answer. */
export const isEchoAnswer = (r: RawResponse): boolean => {
  const m = messagesIn(r).find((x) => "result" in x) as { result?: { content?: Array<{ text?: string }> } } | undefined;
  return r.status === 200 && m?.result?.content?.[0]?.text === "hello";
};
