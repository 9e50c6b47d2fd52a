/**
 * The live status line of `agentd run` on a terminal: one line at the bottom of stderr, redrawn in place,
 * saying what the run is doing now — the turn, the model thinking or streaming (with how much it has
 * written), each tool call in flight with a short summary of its arguments and how long it has run, and
 * the last call that ended. Telemetry lines are printed above it. It is shown only when stderr is a
 * terminal, without `NO_COLOR` and without `--quiet` (see `statusLineWanted`); piped, nothing of it is
 * written. `renderStatus` is pure (tested alone); `createStatusLine` owns the timer and the terminal.
 */
import type { AgentStreamEvent } from "@agentd/sdk";
import { forTerminal } from "../terminal-text.ts";

/** What the run is doing, as far as the status line knows. */
export interface StatusState {
  turn: number;
  /** `model`: a request in flight (since `since`); `tools`: tool calls in flight; `idle`: between steps. */
  phase: "idle" | "model" | "tools";
  since: number;
  /** Text and reasoning characters the model has streamed this turn. */
  streamed: { text: number; reasoning: number };
  calls: Map<string, { name: string; args: string; started: number }>;
  /** The last call that ended: name, its argument summary, ok or error, duration. */
  last?: { name: string; args: string; isError: boolean; durationMs: number };
}

/** A fresh state. */
export const initialStatus = (now: number): StatusState => ({
  turn: 0,
  phase: "idle",
  since: now,
  streamed: { text: 0, reasoning: 0 },
  calls: new Map(),
});

const ARGS_CHARS = 40;

/** A tool call's arguments in at most 40 characters (they arrive with credentials already masked). */
export function summarizeArgs(args: unknown): string {
  const json = JSON.stringify(args) ?? "";
  const flat = json.replace(/\s+/g, " ");
  return flat.length > ARGS_CHARS ? `${flat.slice(0, ARGS_CHARS - 1)}…` : flat;
}

/** `340ms`, `1.2s`, `2m03s`. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** Fold one stream event into the state. */
export function updateStatus(state: StatusState, e: AgentStreamEvent, now: number): StatusState {
  switch (e.type) {
    case "model-start":
      return { ...state, turn: e.turn, phase: "model", since: now, streamed: { text: 0, reasoning: 0 } };
    case "text-delta":
      return { ...state, streamed: { ...state.streamed, text: state.streamed.text + e.delta.length } };
    case "reasoning-delta":
      return { ...state, streamed: { ...state.streamed, reasoning: state.streamed.reasoning + e.delta.length } };
    case "model-end":
      return { ...state, phase: "idle", since: now };
    case "tool-call-start": {
      const calls = new Map(state.calls);
      calls.set(e.toolCallId, { name: e.qualifiedName ?? e.name, args: summarizeArgs(e.arguments), started: now });
      return { ...state, phase: "tools", calls };
    }
    case "tool-call-end": {
      const calls = new Map(state.calls);
      const call = calls.get(e.toolCallId);
      calls.delete(e.toolCallId);
      const last = { name: e.qualifiedName ?? e.name, args: call?.args ?? "", isError: e.isError, durationMs: e.durationMs };
      return { ...state, phase: calls.size ? "tools" : "idle", since: now, calls, last };
    }
    default:
      return state;
  }
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The line for `state` at `now`, at most `columns - 1` characters (so it never wraps). */
export function renderStatus(state: StatusState, now: number, columns = 80): string {
  const parts: string[] = [state.turn ? `turn ${state.turn}` : "starting"];
  if (state.phase === "model") {
    const { text, reasoning } = state.streamed;
    const what = text ? `model streaming (${text} chars)` : reasoning ? `model reasoning (${reasoning} chars)` : "model thinking";
    parts.push(`${what} ${formatElapsed(now - state.since)}`);
  } else if (state.phase === "tools") {
    for (const c of state.calls.values()) parts.push(`${c.name} ${c.args} ${formatElapsed(now - c.started)}`);
  } else if (state.last) {
    const l = state.last;
    parts.push(`${l.name} ${l.args} ${l.isError ? "failed" : "done"} in ${formatElapsed(l.durationMs)}`);
  }
  const spinner = SPINNER[Math.floor(now / 100) % SPINNER.length];
  // Tool names and arguments are a server's and a model's text: escaped, so the line stays one line.
  const line = `${spinner} ${forTerminal(parts.join(" · "))}`;
  const max = Math.max(10, columns - 1);
  return Array.from(line).length > max
    ? `${Array.from(line)
        .slice(0, max - 1)
        .join("")}…`
    : line;
}

/** Whether the live status line is shown: stderr is a terminal, no `NO_COLOR`, no `--quiet`. */
export const statusLineWanted = (
  quiet: boolean,
  env: Record<string, string | undefined> = process.env,
  isTTY = process.stderr.isTTY === true,
): boolean => isTTY && !quiet && !env.NO_COLOR;

/** A status line drawn on a terminal. */
export interface StatusLine {
  /** Fold a run event in and redraw. */
  event(e: AgentStreamEvent): void;
  /** Write `text` (whole lines) above the status line: telemetry, a result on the same terminal. */
  printAbove(text: string, to?: (s: string) => void): void;
  /** Erase the line and stop drawing it until `resume()` (the answer's text is being written on the terminal). */
  suspend(): void;
  /** Draw the line again after `suspend()`. */
  resume(): void;
  /** Erase the line and stop redrawing until the returned function is called (a question is asked meanwhile). */
  hold(): () => void;
  /** Erase the line and stop redrawing. */
  close(): void;
}

const CLEAR = "\r\x1b[2K";

/** Draw a status line with `write` (stderr's), redrawn every `intervalMs` so durations tick. */
export function createStatusLine(options: {
  write: (s: string) => void;
  columns?: () => number;
  intervalMs?: number;
  now?: () => number;
}): StatusLine {
  const now = options.now ?? (() => performance.now());
  const columns = options.columns ?? (() => process.stderr.columns ?? 80);
  let state = initialStatus(now());
  let closed = false;
  let suspended = false;
  let held = 0;
  const draw = () => {
    if (!closed && !suspended && held === 0) options.write(`${CLEAR}${renderStatus(state, now(), columns())}`);
  };
  const timer = setInterval(draw, options.intervalMs ?? 100);
  timer.unref?.();
  draw();
  return {
    event(e) {
      state = updateStatus(state, e, now());
      draw();
    },
    printAbove(text, to = options.write) {
      if (closed || suspended || held > 0) return to(text);
      options.write(CLEAR);
      to(text);
      draw();
    },
    suspend() {
      if (closed || suspended) return;
      suspended = true;
      options.write(CLEAR);
    },
    resume() {
      suspended = false;
      draw();
    },
    hold() {
      if (held++ === 0 && !closed && !suspended) options.write(CLEAR);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held--;
        draw();
      };
    },
    close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      options.write(CLEAR);
    },
  };
}
