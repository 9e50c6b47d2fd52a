/**
 * Reading a JSON response body with a size bound, so a misbehaving server cannot exhaust memory.
 */
import { AgentdError } from "../../wire/errors.ts";
import { networkError } from "./http-errors.ts";

/** Read `response` as text, failing with `E_FRAME_TOO_LARGE` past `maxBytes`. */
export async function readBoundedText(response: Response, maxBytes: number, serverName: string): Promise<string> {
  const tooLarge = () =>
    new AgentdError("E_FRAME_TOO_LARGE", `MCP server '${serverName}' sent a JSON response over ${maxBytes} bytes`, {
      data: { server: serverName },
    });
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
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
