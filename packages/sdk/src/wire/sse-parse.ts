/**
 * A streaming Server-Sent Events parser (WHATWG HTML, "Parsing an event stream"), correct on any chunking.
 *
 * Why we write it instead of depending on `eventsource-parser` (4.x): its `maxBufferSize` ends the whole
 * stream when one event is too large, while a resumable MCP stream must drop that one event and carry on
 * (see `maxEventChars` below); and the transports' hot path wants the id of every event as it is seen, for
 * `Last-Event-ID`. What is left is ~130 lines. `eventsource-parser` stays the oracle, as a dev dependency:
 * the test feeds thousands of random streams, split at random chunk boundaries, to both parsers and asserts
 * identical callbacks.
 *
 * Semantics (those of the spec, with the reporting shape of `eventsource-parser`):
 * - lines end in CR, LF or CRLF, including a CR at the end of one chunk and its LF at the start of the next;
 * - one leading U+FEFF (BOM) is dropped; a line starting with `:` is a comment;
 * - `field: value` loses one space after the colon; a line without a colon is a field with an empty value;
 * - `data` lines join with LF; an event is dispatched on a blank line if it had at least one `data` line;
 * - `id` containing U+0000 is ignored; `retry` is taken only when it is all ASCII digits;
 * - an event's `id` is the id field given in that event (undefined if none): keeping the stream's
 *   last-event-id cursor is the consumer's job ({@link SseCallbacks.onId} reports every id seen);
 * - unknown fields are ignored; an incomplete event at the end of the stream is never dispatched.
 * An event whose data outgrows `maxEventChars` is dropped (its `id`, `event`, `retry` still count) and
 * reported through `onOverflow`, so one huge frame cannot exhaust memory or poison the stream.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The `data` lines joined with LF (may be empty: a priming event is `id: X` + `data:`). */
  data: string;
  /** The `event` field, undefined when absent or empty (the spec's default type "message"). */
  event?: string | undefined;
  /** The `id` field given in this event, if any. */
  id?: string | undefined;
}

/** What the parser reports, in stream order. */
export interface SseCallbacks {
  onEvent(event: SseEvent): void;
  /** At each event boundary where an `id` field was given (also for events without data). */
  onId?(id: string): void;
  /** A valid `retry` field (milliseconds), as soon as its line is read. */
  onRetry?(ms: number): void;
  /** A comment line, without the colon and one optional leading space. */
  onComment?(text: string): void;
  /** An event was dropped because its data (or one line) exceeded `maxEventChars`. */
  onOverflow?(): void;
}

/** A push parser: feed decoded text chunks. */
export interface SseParser {
  feed(chunk: string): void;
}

/**
 * One event's fields as its lines arrive (the spec's "interpret an event stream"): `data` lines joined,
 * `event`, `id` and `retry` kept, dispatched on a blank line; an event over the bound is dropped whole.
 */
class EventAssembly {
  private data = "";
  private dataLines = 0;
  private eventType: string | undefined;
  private id: string | undefined;
  private dropping = false; // dropping the current event's data

  constructor(
    private readonly callbacks: SseCallbacks,
    private readonly max: number,
  ) {}

  /** The current event is over the bound: drop its data (reported once). */
  overflow(): void {
    if (!this.dropping) this.callbacks.onOverflow?.();
    this.dropping = true;
    this.data = "";
    this.dataLines = 0;
  }

  /** One whole line, without its line end. */
  line(text: string): void {
    if (text === "") return this.dispatch();
    const colon = text.indexOf(":");
    if (colon === 0) {
      this.callbacks.onComment?.(text.charCodeAt(1) === 32 ? text.slice(2) : text.slice(1));
      return;
    }
    if (colon === -1) return this.field(text, "");
    const start = text.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1;
    this.field(text.slice(0, colon), text.slice(start));
  }

  private dispatch(): void {
    const { id } = this;
    if (id !== undefined) this.callbacks.onId?.(id);
    if (this.dataLines > 0 && !this.dropping) this.callbacks.onEvent({ data: this.data, event: this.eventType, id });
    this.data = "";
    this.dataLines = 0;
    this.eventType = undefined;
    this.id = undefined;
    this.dropping = false;
  }

  private field(name: string, value: string): void {
    switch (name) {
      case "data":
        if (this.dropping) return;
        this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
        this.dataLines++;
        if (this.data.length > this.max) this.overflow();
        return;
      case "event":
        this.eventType = value === "" ? undefined : value;
        return;
      case "id":
        if (!value.includes("\0")) this.id = value;
        return;
      case "retry":
        if (/^\d+$/.test(value)) this.callbacks.onRetry?.(Number.parseInt(value, 10));
        return;
    }
  }
}

/**
 * Create a parser. `maxEventChars` bounds one event's data and any single line (default unbounded). The
 * parser splits the chunks into lines (CR, LF or CRLF, one split across chunks included); the lines make
 * events in {@link EventAssembly}.
 */
export function createSseParser(callbacks: SseCallbacks, options: { maxEventChars?: number } = {}): SseParser {
  const max = options.maxEventChars ?? Number.POSITIVE_INFINITY;
  const events = new EventAssembly(callbacks, max);
  const lineEnd = /[\r\n]/g; // per parser: a callback may feed another parser re-entrantly
  const pending: string[] = []; // the current line so far, as fragments: joined once, when the line ends
  let pendingChars = 0;
  let bomChecked = false;
  let skipLf = false; // the previous chunk ended in CR: a leading LF belongs to it
  let skipLine = false; // dropping the rest of an oversized line

  const hold = (fragment: string) => {
    if (skipLine) return;
    pending.push(fragment);
    pendingChars += fragment.length;
    if (pendingChars > max) {
      // One line alone is over the bound: drop it, and the event it belongs to.
      pending.length = 0;
      pendingChars = 0;
      skipLine = true;
      events.overflow();
    }
  };

  return {
    feed(chunk: string) {
      if (chunk === "") return;
      if (!bomChecked) {
        bomChecked = true;
        if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      }
      if (skipLf) {
        skipLf = false;
        if (chunk.charCodeAt(0) === 10) chunk = chunk.slice(1);
      }
      if (chunk.indexOf("\n") === -1 && chunk.indexOf("\r") === -1) return hold(chunk);
      const offset = pendingChars; // the held fragments contain no line end: start looking after them
      const text = pending.length > 0 ? pending.join("") + chunk : chunk;
      pending.length = 0;
      pendingChars = 0;
      let pos = 0;
      lineEnd.lastIndex = offset;
      for (let m = lineEnd.exec(text); m !== null; m = lineEnd.exec(text)) {
        const end = m.index;
        if (skipLine) skipLine = false;
        else events.line(text.slice(pos, end));
        pos = end + 1;
        if (text.charCodeAt(end) === 13) {
          if (pos === text.length) skipLf = true;
          else if (text.charCodeAt(pos) === 10) pos++;
        }
        lineEnd.lastIndex = pos;
      }
      if (pos < text.length) hold(text.slice(pos));
    },
  };
}
