/**
 * The standalone GET (server-push) stream's state machine: at most one stream, its state as callers see it
 * (`off`, `connecting`, `open`, `reconnecting`, `unsupported` once the server answered 405, `failed`), and
 * the callers of `openGetStream()` waiting for the first attempt's outcome. `unsupported` is remembered:
 * a server that offers no push stream is never asked again.
 */
import type { SseStream } from "./sse-stream.ts";

/** Where the standalone GET (server-push) stream is. */
export type GetStreamState = "off" | "connecting" | "open" | "reconnecting" | "unsupported" | "failed";

/** The one GET stream of a transport and who waits on it. */
export class GetStreamSlot {
  /** The stream, while one is running. */
  stream: SseStream | undefined;
  private current: GetStreamState = "off";
  private waiters: Array<(state: GetStreamState) => void> = [];

  /** Where the stream is. */
  get state(): GetStreamState {
    return this.current;
  }

  /**
   * Open a stream made by `make` and handed to `start`, unless one runs already; resolves with the outcome
   * of the first attempt (`open`, `unsupported`, `reconnecting` or `failed`).
   */
  open(make: () => SseStream, start: (stream: SseStream) => void): Promise<GetStreamState> {
    const settled = new Promise<GetStreamState>((resolve) => this.waiters.push(resolve));
    if (this.stream) {
      if (this.current !== "connecting") this.set(this.current);
      return settled;
    }
    const stream = make();
    stream.onstate = (state) => {
      if (this.stream === stream && (state === "open" || state === "reconnecting")) this.set(state);
    };
    this.stream = stream;
    this.set("connecting");
    start(stream);
    return settled;
  }

  /** Forget the stream (its session ended): `off`, unless the server offers none. */
  drop(): void {
    this.stream = undefined;
    if (this.current !== "unsupported") this.set("off");
  }

  /** `stream` ended: if it is ours, `off` when it was aborted, else `failed` (unless unsupported). */
  finished(stream: SseStream): void {
    if (stream !== this.stream) return;
    this.stream = undefined;
    if (this.current !== "unsupported") this.set(stream.ctrl.signal.aborted ? "off" : "failed");
  }

  /** Move to `state`; every state but `connecting` settles the waiting callers. */
  set(state: GetStreamState): void {
    this.current = state;
    if (state === "connecting") return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(state);
  }
}
