/**
 * Test support: replay recorded provider streams (`__fixtures__/*.chunks.jsonl`, one JSON chunk a line) as
 * SSE through an injected `fetch`, cut into small byte pieces so line buffering is exercised, and record
 * what the adapter sent. Used by the unit tests only; never exported from the package.
 */
import { readFileSync } from "node:fs";
import type { FetchFunction } from "../_internal/settings.ts";

/** The chunks of a fixture file next to `base` (pass `import.meta.url`). */
export function readFixture(base: string, name: string): string[] {
  return readFileSync(new URL(`__fixtures__/${name}`, base), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
}

/** How to frame the replay. */
export interface ReplayOptions {
  /** Name each event after its `type` field (Anthropic). */
  eventNames?: boolean;
  /** Append `data: [DONE]` (OpenAI). */
  done?: boolean;
  lineEnd?: "\n" | "\r\n";
  /** Bytes per body chunk (default 7: splits lines, CRLFs and multi-byte characters). */
  pieceBytes?: number;
}

/** An SSE response replaying `chunks`. */
export function sseResponse(chunks: readonly string[], o: ReplayOptions = {}): Response {
  const end = o.lineEnd ?? "\n";
  let text = "";
  for (const c of chunks) {
    const type = o.eventNames ? (JSON.parse(c) as { type?: string }).type : undefined;
    text += `${type ? `event: ${type}${end}` : ""}data: ${c}${end}${end}`;
  }
  if (o.done) text += `data: [DONE]${end}${end}`;
  const bytes = new TextEncoder().encode(text);
  const size = o.pieceBytes ?? 7;
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

/** A JSON response. */
export const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** One request the adapter made. */
export interface SentRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * A fetch answering with `replies` in order (a reply may throw, to simulate a network failure) and
 * recording each request.
 */
export function scriptedFetch(replies: Array<(req: SentRequest) => Response | Promise<Response>>): {
  fetch: FetchFunction;
  sent: SentRequest[];
} {
  const sent: SentRequest[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const req: SentRequest = { url: String(input), headers, body: JSON.parse(String(init?.body ?? "{}")) };
    sent.push(req);
    const reply = replies.shift();
    if (!reply) throw new Error(`scriptedFetch: no reply left for request ${sent.length}`);
    return reply(req);
  };
  return { fetch, sent };
}
