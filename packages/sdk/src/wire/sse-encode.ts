/**
 * Server-Sent Events framing, the writing half (WHATWG HTML "event stream interpretation").
 *
 * An event is a block of `field: value` lines ended by a blank line. A value never contains a line break:
 * multi-line data is split across several `data:` lines (the reader joins them with "\n"), and fields that
 * must be one line (`id`, `event`) refuse CR/LF outright rather than let a value inject a second field.
 */

/** One SSE event to write. Every field is optional; an event with no fields is just a blank line. */
export interface SseEvent {
  /** The event id (becomes the reader's `Last-Event-ID`). Must not contain CR, LF or NUL. */
  id?: string;
  /** The event type; readers treat a missing type as `message`. Must not contain CR or LF. */
  event?: string;
  /** The payload. `""` writes an empty `data:` line (a priming event); `undefined` writes none. */
  data?: string;
  /** Reconnection delay the reader should use, in milliseconds (a non-negative integer). */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** Whether `s` holds CR or LF (`indexOf` is a native scan; a regex test costs several times more per event). */
const hasLineBreak = (s: string) => s.indexOf("\n") !== -1 || s.indexOf("\r") !== -1;

function assertOneLine(field: string, value: string): void {
  if (hasLineBreak(value) || value.indexOf("\0") !== -1) throw new TypeError(`SSE ${field} must be a single line without NUL`);
}

/** Encode one event as text, including its terminating blank line. Throws on an id/event with a line break. */
export function encodeSseEvent(e: SseEvent): string {
  let out = "";
  if (e.id !== undefined) {
    assertOneLine("id", e.id);
    out += `id: ${e.id}\n`;
  }
  if (e.event !== undefined) {
    assertOneLine("event", e.event);
    out += `event: ${e.event}\n`;
  }
  if (e.retry !== undefined) {
    if (!Number.isInteger(e.retry) || e.retry < 0) throw new TypeError("SSE retry must be a non-negative integer");
    out += `retry: ${e.retry}\n`;
  }
  if (e.data !== undefined) {
    // Fast path: serialised JSON never holds a raw line break.
    if (!hasLineBreak(e.data)) out += `data: ${e.data}\n`;
    else for (const line of e.data.split(LINE_BREAK)) out += `data: ${line}\n`;
  }
  return `${out}\n`;
}

/**
 * Encode a comment line (ignored by readers); used as a keep-alive so proxies and idle timers see traffic.
 * Line breaks in `text` become separate comment lines.
 */
export function encodeSseComment(text = ""): string {
  let out = "";
  for (const line of text.split(LINE_BREAK)) out += line === "" ? ":\n" : `: ${line}\n`;
  return `${out}\n`;
}
