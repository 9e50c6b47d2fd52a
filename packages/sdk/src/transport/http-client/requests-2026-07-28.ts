/**
 * What a 2026-07-28 request needs of the HTTP layer. Headers it mirrors from its body (transport spec, "Standard Request Headers"):
 * `Mcp-Method` always, `Mcp-Name` for `tools/call` and `prompts/get` (`params.name`), `resources/read`
 * (`params.uri`) and the tasks extension's `tasks/*` (`params.taskId`); `Mcp-Param-*` come with the request's
 * send options (the client knows the tool's annotations). A value that is not plain visible ASCII (or looks like the sentinel itself) travels as
 * `=?base64?…?=` ("Value Encoding"). And refusals: a stateless server answers them with a 4xx whose
 * body is the JSON-RPC error of the request, which the protocol layer must see as the answer.
 */
import { isStatelessRevision } from "../../wire/codec.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import { readBoundedText } from "./read-body.ts";
import { encodeHeaderValue } from "../../wire/param-headers.ts";

export { encodeHeaderValue };

// The tasks extension routes its methods by task id ("Streamable HTTP: Routing Headers").
const NAMED: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

/** Add the mirrored headers of `message` when `revision` is a stateless one. */
export function mirrorRequestHeaders(
  headers: Headers,
  revision: string | undefined,
  message: { method?: unknown; params?: unknown },
): void {
  if (!isStatelessRevision(revision) || typeof message.method !== "string") return;
  headers.set("mcp-method", message.method);
  const field = NAMED[message.method];
  const value = field === undefined ? undefined : (message.params as Record<string, unknown> | undefined)?.[field];
  if (typeof value === "string") headers.set("mcp-name", encodeHeaderValue(value));
}

/**
 * The JSON-RPC error answering `requestId` in a refused POST's body, or undefined (the body is read from a
 * clone: the caller's error path can still read it).
 */
export async function readErrorAnswer(response: Response, requestId: RequestId, maxBytes: number, serverName: string): Promise<unknown> {
  if (!(response.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")) return undefined;
  try {
    const body = JSON.parse(await readBoundedText(response.clone(), maxBytes, serverName)) as Record<string, unknown>;
    const error = body.error as { code?: unknown } | undefined;
    return body.id === requestId && typeof error?.code === "number" ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A refused POST's body as the request's answer, or undefined. A stateless server answers refusals
 * (-32020/-32021/-32022, -32601) with 4xx and a JSON-RPC error for the request: the protocol layer decides
 * what it means (the era probe reads it). One that speaks only stateless revisions refuses `initialize` so
 * too (-32022 listing them, with 400): the client then connects with one of those.
 */
export async function refusalAnswer(
  response: Response,
  requestId: RequestId | undefined,
  isInitialize: boolean,
  revision: string | undefined,
  maxBytes: number,
  serverName: string,
): Promise<unknown> {
  if (response.ok || requestId === undefined) return undefined;
  if (!isStatelessRevision(revision) && !(isInitialize && response.status === 400)) return undefined;
  return readErrorAnswer(response, requestId, maxBytes, serverName);
}
