/**
 * The headers of each kind of request to an MCP endpoint (transports spec: POST accepts JSON and SSE, GET
 * accepts SSE; `Mcp-Session-Id` and `MCP-Protocol-Version` once a session exists), and the session id a
 * server assigns, checked before it is echoed on every later request.
 */
import { AgentdError } from "../../wire/errors.ts";

const SESSION_ID = /^[\x21-\x7e]+$/;

/** The `Mcp-Session-Id` an initialize response assigned, or undefined (a server without sessions); only visible ASCII is taken. */
export function assignedSessionId(response: Response, serverName: string): string | undefined {
  const id = response.headers.get("mcp-session-id");
  if (id === null) return undefined;
  if (!SESSION_ID.test(id))
    throw new AgentdError("E_TRANSPORT", `MCP server '${serverName}' assigned a session id with characters outside visible ASCII`);
  return id;
}

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
