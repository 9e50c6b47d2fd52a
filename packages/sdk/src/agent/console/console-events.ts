/**
 * The console's live feed (`/console/events`): an SSE stream of the caller's snapshot, sent when it changes.
 * Changes are reported by the run registry and the facts, and re-checked on a timer for what is not reported
 * (uptime, connections); bursts are coalesced and an unchanged snapshot is not sent again. Streams are capped
 * per principal, so a page left open in many tabs cannot hold the process's memory.
 */
import type { Logger } from "../../log.ts";
import type { Principal } from "../../serve/principal.ts";
import { consoleFailure, withHeaders } from "./console-http.ts";
import type { ConsoleFacts } from "./console-facts.ts";
import { consoleSnapshot, type ConsoleViewSources } from "./console-view.ts";

/** Run events that move a run's timeline without changing its summary. */
const LIVE_STEPS = new Set(["text-delta", "reasoning-delta", "model-retry", "tool-call-start", "tool-call-end"]);
/** What the feed reads and how often. */
export interface ConsoleEventsOptions {
  sources: ConsoleViewSources;
  /** The agent's facts as given (their `onChange` reports what the run registry does not). */
  facts: ConsoleFacts;
  /** Open event streams one principal may hold (429 past it). Default 16. */
  maxStreamsPerPrincipal?: number;
  /** How often an open stream re-checks for changes not reported as events, ms. Default 2000. */
  refreshMs?: number;
  keepAliveMs?: number;
  logger: Logger;
}

/** The open feeds: one more for a principal, or all of them closed. */
export interface ConsoleEvents {
  /** The SSE answer for `who`, or 429 when they already hold their cap of streams. */
  open(who: Principal): Response;
  /** End every open stream. */
  close(): void;
}

const encoder = new TextEncoder();

/** The console's event streams, counted per principal. */
export function createConsoleEvents(o: ConsoleEventsOptions): ConsoleEvents {
  const feeds = new Set<SnapshotFeed>();
  const openStreams = new Map<string, number>();
  const cap = o.maxStreamsPerPrincipal ?? 16;
  return {
    open(who) {
      const held = openStreams.get(who.id) ?? 0;
      if (held >= cap) {
        o.logger.warn("console.stream.refused", { principal: who.id, open: held });
        const res = consoleFailure(429, "too_many_streams", `this principal already holds ${cap} open console streams; close a tab first`);
        res.headers.set("retry-after", "5");
        return res;
      }
      openStreams.set(who.id, held + 1);
      const ended = (feed: SnapshotFeed) => {
        feeds.delete(feed);
        const n = (openStreams.get(who.id) ?? 1) - 1;
        if (n > 0) openStreams.set(who.id, n);
        else openStreams.delete(who.id);
      };
      let feed: SnapshotFeed | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          feed = new SnapshotFeed(controller, o, who, ended);
          feeds.add(feed);
          feed.start();
        },
        cancel() {
          feed?.stop();
        },
      });
      return withHeaders(new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-store" } }));
    },
    close() {
      for (const feed of [...feeds]) feed.stop();
    },
  };
}

/** One open stream: its subscriptions and timers, the last snapshot it sent, and its end. */
class SnapshotFeed {
  private last = "";
  private pending = false;
  private closed = false;
  private readonly teardown: Array<() => void> = [];

  constructor(
    private readonly controller: ReadableStreamDefaultController<Uint8Array>,
    private readonly o: ConsoleEventsOptions,
    private readonly who: Principal,
    private readonly onEnd: (feed: SnapshotFeed) => void,
  ) {}

  /** Subscribe to changes, start the timers, and send the first snapshot at once. */
  start(): void {
    const { sources } = this.o;
    const push = () => void this.push();
    this.teardown.push(sources.registry.onChange(push));
    // The timeline's live steps (streamed text, retries, a call starting) change no summary: they push too.
    this.teardown.push(sources.registry.onRunEvent((e) => LIVE_STEPS.has(e.type) && push()));
    this.teardown.push(this.o.facts.onChange?.(push) ?? (() => {}));
    // A question asked or decided (by any replica, when the desk's store is shared) moves the Questions page.
    this.teardown.push(sources.questions?.desk?.watch(push) ?? (() => {}));
    const refresh = setInterval(push, this.o.refreshMs ?? 2000);
    const keepAlive = setInterval(() => this.send(": keep-alive\n\n"), this.o.keepAliveMs ?? 15_000);
    this.teardown.push(
      () => clearInterval(refresh),
      () => clearInterval(keepAlive),
    );
    // Bun sends no headers before the first body byte: the first snapshot goes at once.
    this.controller.enqueue(encoder.encode(": console\n\n"));
    push();
  }

  /** Send the caller's snapshot if it changed; a burst of changes costs one snapshot. */
  async push(): Promise<void> {
    if (this.pending || this.closed) return;
    this.pending = true;
    // Changes come in bursts (a run's turns and tool calls): one snapshot per tick of the event loop.
    await new Promise((r) => setTimeout(r, 50));
    this.pending = false;
    if (this.closed) return;
    let text: string;
    try {
      text = JSON.stringify(await consoleSnapshot(this.o.sources, this.who));
    } catch (e) {
      // A fact that fails to read costs this update, never the stream or the process.
      this.o.logger.warn("console.snapshot_failed", { error: e instanceof Error ? e.message : String(e) });
      return;
    }
    if (text === this.last || this.closed) return;
    this.last = text;
    this.send(`event: snapshot\ndata: ${text}\n\n`);
  }

  /** Write to the stream; a stream the client has gone from ends the feed. */
  private send(text: string): void {
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.stop();
    }
  }

  /** End the feed once: release its slot, drop its subscriptions and timers, close the stream. */
  stop(): void {
    if (this.closed) return;
    this.closed = true;
    this.onEnd(this);
    for (const off of this.teardown) off();
    try {
      this.controller.close();
    } catch {
      // already closed by the client going away
    }
  }
}
