/**
 * Detecting a server that only speaks the deprecated 2024-11-05 HTTP+SSE transport, so the user gets a
 * clear error instead of a bare 404/405. agentd never implements that transport: it was deprecated by 2025-03-26.
 *
 * The spec's backwards-compatibility rule: if POSTing `initialize` fails with 400, 404 or 405, a GET on the
 * same URL that opens an SSE stream whose first event is `endpoint` identifies an old server.
 */
import { createSseParser } from "../../wire/sse-parse.ts";
import { AgentdError } from "../../wire/errors.ts";
import { fetchSameOrigin } from "./fetch-same-origin.ts";
import { mediaType } from "./http-errors.ts";

/** Most bytes of the probe's stream read while waiting for its first event. */
const PROBE_BYTES = 64 * 1024;

/** Statuses after which the spec says to probe for the old transport. */
export const SSE_FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

/** Whether GET `url` opens an SSE stream whose first event is `endpoint`. Bounded by `timeoutMs`. */
export async function isSseTransportServer(
  fetchFn: typeof fetch,
  url: URL,
  headers: Headers,
  signal: AbortSignal,
  serverName: string,
  timeoutMs = 5000,
): Promise<boolean> {
  const ctrl = new AbortController();
  const stop = () => ctrl.abort();
  signal.addEventListener("abort", stop, { once: true });
  const timer = setTimeout(stop, timeoutMs);
  try {
    const probeHeaders = new Headers(headers);
    probeHeaders.set("accept", "text/event-stream");
    const response = await fetchSameOrigin(fetchFn, url, { method: "GET", headers: probeHeaders, signal: ctrl.signal }, serverName);
    if (!response.ok || mediaType(response.headers.get("content-type")) !== "text/event-stream" || !response.body) {
      await response.body?.cancel().catch(() => {});
      return false;
    }
    let first: string | undefined;
    const parser = createSseParser({ onEvent: (e) => (first ??= e.event ?? "message") }, { maxEventChars: 64 * 1024 });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    // A server that streams without ever completing an event is no evidence either: stop after 64 KiB.
    for (let bytes = 0; first === undefined && bytes <= PROBE_BYTES; ) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    return first === "endpoint";
  } catch {
    return false; // unreachable, timed out, or aborted: no evidence of the old transport
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
    ctrl.abort();
  }
}

/** The error for a server that only speaks the old transport. */
export function sseTransportError(serverName: string, status: number): AgentdError {
  return new AgentdError(
    "E_TRANSPORT",
    `MCP server '${serverName}' only speaks the deprecated 2024-11-05 HTTP+SSE transport, which agentd does not support; ` +
      "use the server's Streamable HTTP endpoint (MCP 2025-03-26 or later)",
    { data: { server: serverName, status } },
  );
}
