/**
 * The headers of each kind of request to an MCP endpoint (transports spec: POST accepts JSON and SSE, GET
 * accepts SSE; `Mcp-Session-Id` and `MCP-Protocol-Version` once a session exists).
 */

/** Build the headers for one request. User headers come first; protocol headers always win over them. */
export function requestHeaders(
  user: Record<string, string>,
  method: "POST" | "GET" | "DELETE",
  state: { session?: string | undefined; protocolVersion?: string | undefined },
): Headers {
  const h = new Headers(user);
  if (method === "POST") {
    h.set("content-type", "application/json");
    h.set("accept", "application/json, text/event-stream");
  } else if (method === "GET") h.set("accept", "text/event-stream");
  h.delete("mcp-session-id");
  h.delete("mcp-protocol-version");
  h.delete("last-event-id");
  if (state.session !== undefined) h.set("mcp-session-id", state.session);
  if (state.protocolVersion !== undefined) h.set("mcp-protocol-version", state.protocolVersion);
  return h;
}
