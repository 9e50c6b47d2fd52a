/**
 * Reading a JSON response body with a size bound, so a misbehaving server cannot exhaust memory.
 */
import { readBoundedText as readBounded } from "../../_internal/bounded-body.ts";
import { AgentdError } from "../../wire/errors.ts";
import { networkError } from "./http-errors.ts";

/** Read `response` as text, failing with `E_FRAME_TOO_LARGE` past `maxBytes` (the shared bounded reader). */
export function readBoundedText(response: Response, maxBytes: number, serverName: string): Promise<string> {
  return readBounded(response, {
    limit: maxBytes,
    peer: `MCP server '${serverName}'`,
    url: response.url,
    code: "E_FRAME_TOO_LARGE",
    hint: "the transport's maxFrameBytes",
  });
}

/** The messages of an `application/json` answer: one object, or a (2025-03-26) batch array. */
export async function readJsonMessages(response: Response, maxBytes: number, serverName: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readBoundedText(response, maxBytes, serverName);
  } catch (e) {
    throw AgentdError.isInstance(e) ? e : networkError(serverName, "POST", e);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AgentdError("E_TRANSPORT", `MCP server '${serverName}' answered with a body that is not JSON`);
  }
  return Array.isArray(body) ? body : [body];
}
