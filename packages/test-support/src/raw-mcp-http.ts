/**
 * Proof helpers (not exported from the package): MCP over Streamable HTTP by hand, with `fetch` and an SSE
 * reader that waits on events, never on time. Used by the serve proofs here and by the CLI's `agentd serve`
 * tests, which need to see event ids, status codes and headers that an SDK client hides.
 */

export { POST_HEADERS, post, SseReader, type FetchInit } from "./raw-http.ts";
import { post, SseReader, type FetchInit } from "./raw-http.ts";

/** An `initialize` request. */
export const initializeRequest = (id: number | string = 0, protocolVersion = "2025-11-25") => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "serve-proof", version: "0.0.0" } },
});

/** A JSON-RPC request. */
export const request = (id: number | string, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

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
export async function call(
  url: URL | string,
  s: RawSession,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  init: FetchInit = {},
) {
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
