/**
 * One logical SSE stream of a Streamable HTTP session, kept alive across broken connections.
 *
 * Two kinds: the standalone GET stream (server push), and a POST's response stream (which ends once the
 * request's response arrived). When a connection breaks first, the stream reconnects after the server's
 * `retry` value (else bounded backoff with jitter) by GET with `Last-Event-ID` — the spec's only way to
 * resume, whichever request opened the stream — and drops any event whose id it already delivered, so every
 * message arrives exactly once. A server that keeps ending the stream at once without sending anything is
 * backed off from like a failing one, and given up on after `maxEmptyStreams` such streams in a row.
 * Failures that end the stream are the transport's to report (`host`).
 */
import type { Logger } from "../../log.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import { createSseParser, type SseEvent } from "../../wire/sse-parse.ts";
import { AgentdError } from "../../wire/errors.ts";
import { mediaType, networkError } from "./http-errors.ts";
import { DEFAULT_MAX_EMPTY_STREAMS, reconnectDelay, type ReconnectOptions } from "./options.ts";
import { sleep } from "../../_internal/sleep.ts";

/** How many delivered event ids a stream remembers for de-duplication. */
const SEEN_IDS = 1024;

/** What a stream needs from the transport that owns it. */
export interface StreamHost {
  readonly name: string;
  readonly reconnect: ReconnectOptions;
  readonly maxFrameChars: number;
  readonly logger: Logger;
  /** GET the endpoint for SSE, with `Last-Event-ID` when given. Throws on network failure. */
  openGet(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** A GET was answered with an error status: report it, and say whether retrying may help. */
  rejected(response: Response, stream: SseStream): Promise<"retry" | Error>;
  /** One JSON-parsed inbound message. */
  deliver(message: unknown): void;
  /** SSE data that was not JSON. */
  frameError(data: string): void;
  /** An informational failure (oversized event, given up reconnecting). */
  error(error: Error): void;
  /** The stream is over. `lost` is set when a POST stream ended without its response. */
  finished(stream: SseStream, lost?: Error): void;
}

/** How re-opening has gone since the stream last delivered: failed attempts, empty connections, the last failure. */
interface Tries {
  failures: number;
  /** Consecutive connections that ended soon with nothing in them. */
  empty: number;
  lastFailure: Error | undefined;
}

/** The stream ends now; `lost` is the error that loses its request, if any. */
interface Ending {
  lost?: Error;
}

/** Where a stream is: `open` means a connection is delivering events. */
export type SseStreamState = "connecting" | "open" | "reconnecting" | "ended";

const isResponseTo = (m: unknown, id: RequestId): boolean =>
  typeof m === "object" && m !== null && (m as { id?: unknown }).id === id && ("result" in m || "error" in m);

/** A resumable SSE stream. Create, then `run()` once; `abort()` ends it quietly. */
export class SseStream {
  /** The cursor to resume from (the last `id` seen; an empty `id` clears it, as in the SSE spec). */
  lastEventId: string | undefined;
  state: SseStreamState = "connecting";
  /** Called on every state change (the transport tracks the GET stream's). */
  onstate?: (state: SseStreamState) => void;
  private retryMs: number | undefined;
  private readonly seen = new Set<string>();
  private responded = false;
  /** A message was delivered on the current connection. */
  private delivered = false;
  /** POST streams: an event over the frame limit was dropped (perhaps the response itself). */
  private overflow: AgentdError | undefined;

  constructor(
    readonly kind: "get" | "post",
    private readonly host: StreamHost,
    /** Aborting it ends the stream; for a POST stream it is the POST's own controller. */
    readonly ctrl: AbortController = new AbortController(),
    /** POST streams: the request whose response ends the stream. */
    readonly requestId?: RequestId,
    private readonly onresumptiontoken?: (token: string) => void,
  ) {}

  /** Whether the POST stream's response arrived. */
  get answered(): boolean {
    return this.responded;
  }

  /** End the stream without reporting anything. */
  abort(): void {
    this.ctrl.abort();
  }

  /** Consume `first` (a POST's SSE response) if given, else open by GET; keep going until done. */
  async run(first?: Response, resumeFrom?: string): Promise<void> {
    const signal = this.ctrl.signal;
    this.lastEventId = resumeFrom;
    const tries: Tries = { failures: 0, empty: 0, lastFailure: undefined };
    let response = first;
    let initial = first === undefined;
    for (;;) {
      if (signal.aborted) return this.end();
      if (response) {
        tries.failures = 0;
        const ended = await this.readConnection(response, tries);
        response = undefined;
        if (ended) return this.end(ended.lost);
      }
      if (!initial) {
        const ended = await this.waitToReconnect(tries);
        if (ended) return this.end(ended.lost);
      }
      initial = false;
      const opened = await this.reopen(tries);
      if (opened && "response" in opened) response = opened.response;
      else if (opened) return this.end(opened.lost);
    }
  }

  /**
   * Read one connection to its end; whether the stream ends there (answered, aborted, or unable to resume),
   * with the error that loses its request. Undefined: the connection broke and the stream reconnects.
   */
  private async readConnection(response: Response, tries: Tries): Promise<Ending | undefined> {
    this.setState("open");
    const cursor = this.lastEventId;
    const openedAt = performance.now();
    this.delivered = false;
    await this.consume(response);
    // A server that ends every stream at once with nothing in it (and `retry: 0`) would be re-requested
    // in a tight loop. Progress (a message, a new event id) resets the count, and so does a connection
    // that stayed open as long as our longest backoff (a quiet stream an idle proxy cut is healthy).
    const progressed = this.delivered || this.lastEventId !== cursor;
    tries.empty = progressed || performance.now() - openedAt >= this.host.reconnect.maxDelayMs ? 0 : tries.empty + 1;
    if (this.responded || this.ctrl.signal.aborted) return {};
    // The stream ended without the response after dropping an oversized event: that was the response.
    // Fail the request now, naming the limit, rather than resume (a replay would drop it again) or wait.
    if (this.overflow) return { lost: this.overflow };
    if (this.kind === "post" && this.lastEventId === undefined)
      return { lost: this.lost("the response stream ended early and carried no event id to resume from") };
    this.host.logger.debug("mcp.http.stream.broken", { kind: this.kind });
    return undefined;
  }

  /**
   * Wait before re-opening — the server's `retry` or our backoff, longer after empty streams — unless the
   * stream has failed or come back empty too often (then it ends, reported), or is aborted meanwhile.
   */
  private async waitToReconnect(tries: Tries): Promise<Ending | undefined> {
    const policy = this.host.reconnect;
    const what = this.kind === "get" ? "server-push" : "response";
    if (tries.failures >= policy.maxRetries) {
      const why = tries.lastFailure ? ` (last: ${tries.lastFailure.message})` : "";
      const error = this.lost(`could not re-open the ${what} stream after ${tries.failures} attempts${why}`);
      this.host.error(error);
      return { lost: error };
    }
    if (tries.empty >= (policy.maxEmptyStreams ?? DEFAULT_MAX_EMPTY_STREAMS)) {
      const error = this.lost(`the ${what} stream ended ${tries.empty} times in a row without sending anything`);
      this.host.error(error);
      return { lost: error };
    }
    this.setState("reconnecting");
    // After empty streams, back off as after failures, on top of whatever `retry` the server asked for.
    const backoff = tries.empty > 0 ? reconnectDelay(tries.empty - 1, policy, undefined) : 0;
    await sleep(Math.max(reconnectDelay(tries.failures, policy, this.retryMs), backoff), this.ctrl.signal);
    if (this.ctrl.signal.aborted) return {};
    tries.failures++;
    return undefined;
  }

  /**
   * GET the stream again (with `Last-Event-ID`): the event stream to read, an ending (aborted, refused for
   * good, or not an event stream), or undefined after a failure worth retrying (noted in `tries`).
   */
  private async reopen(tries: Tries): Promise<{ response: Response } | Ending | undefined> {
    const signal = this.ctrl.signal;
    let res: Response;
    try {
      res = await this.host.openGet(this.lastEventId, signal);
    } catch (e) {
      if (signal.aborted) return {};
      if (AgentdError.isInstance(e) && !e.retryable) {
        this.host.error(e); // e.g. a redirect to another origin: retrying cannot help
        return { lost: e };
      }
      tries.lastFailure = networkError(this.host.name, "GET", e);
      return undefined;
    }
    if (!res.ok) {
      const verdict = await this.host.rejected(res, this);
      if (verdict !== "retry") return { lost: verdict };
      tries.lastFailure = new Error(`HTTP ${res.status}`);
      return undefined;
    }
    if (mediaType(res.headers.get("content-type")) !== "text/event-stream" || !res.body) {
      await res.body?.cancel().catch(() => {});
      const error = new AgentdError("E_TRANSPORT", `MCP server '${this.host.name}' answered GET without an event stream`);
      this.host.error(error);
      return { lost: this.lost(error.message, error) };
    }
    return { response: res };
  }

  private lost(why: string, cause?: Error): AgentdError {
    if (AgentdError.isInstance(cause)) return cause;
    return new AgentdError("E_CONNECTION_CLOSED", `MCP server '${this.host.name}': ${why}`, { cause, data: { server: this.host.name } });
  }

  private setState(state: SseStreamState): void {
    if (this.state === state) return;
    this.state = state;
    this.onstate?.(state);
  }

  private end(lost?: Error): void {
    this.setState("ended");
    this.host.finished(this, this.kind === "post" && !this.responded && !this.ctrl.signal.aborted ? lost : undefined);
  }

  /** Read one connection until it ends, breaks, or (POST streams) the response arrived. Never throws. */
  private async consume(response: Response): Promise<void> {
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const parser = createSseParser(
      {
        onEvent: (e) => this.event(e),
        onId: (id) => {
          this.lastEventId = id === "" ? undefined : id;
          if (id !== "" && !this.seen.has(id)) this.onresumptiontoken?.(id); // replays are not news
        },
        onRetry: (ms) => (this.retryMs = ms),
        onOverflow: () => {
          const error = new AgentdError(
            "E_FRAME_TOO_LARGE",
            `MCP server '${this.host.name}' sent an event over the ${this.host.maxFrameChars}-character frame limit (maxFrameBytes); it was discarded`,
            { data: { server: this.host.name, limit: this.host.maxFrameChars } },
          );
          this.host.error(error);
          if (this.kind === "post") this.overflow = error;
        },
      },
      { maxEventChars: this.host.maxFrameChars },
    );
    try {
      while (!this.responded) {
        const { value, done } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
      await reader.cancel().catch(() => {}); // the response is in: the server should end the stream anyway
    } catch (e) {
      if (!this.ctrl.signal.aborted) this.host.logger.debug("mcp.http.stream.error", { kind: this.kind, error: e as Error });
    }
  }

  private event(e: SseEvent): void {
    if (e.id !== undefined && e.id !== "") {
      if (this.seen.has(e.id)) return; // replayed after a resume: already delivered
      this.seen.add(e.id);
      if (this.seen.size > SEEN_IDS) this.seen.delete(this.seen.values().next().value as string);
    }
    if ((e.event !== undefined && e.event !== "message") || e.data === "") return; // priming events, other types
    if (this.ctrl.signal.aborted) return;
    let message: unknown;
    try {
      message = JSON.parse(e.data);
    } catch {
      return this.host.frameError(e.data);
    }
    this.delivered = true;
    for (const m of Array.isArray(message) ? message : [message]) {
      if (this.requestId !== undefined && isResponseTo(m, this.requestId)) this.responded = true;
      this.host.deliver(m);
    }
  }
}
