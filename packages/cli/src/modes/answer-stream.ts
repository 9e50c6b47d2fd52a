/**
 * The model's text on a terminal as it is written: `agentd run` in a terminal (stdout a TTY, no `--json`,
 * `--stream` or `--output-schema`) prints each turn's text while the model streams it, instead of only the
 * final answer at the end. Text a turn writes before calling tools is shown too (it ends its own line).
 *
 * What reaches stdout is masked as every output is (`scrubSecrets`): a value cannot be masked while half of it
 * is still to come, so the text is written up to a word boundary, holding back the last two words (a
 * `Bearer <token>` pair stays together) until more text, a line end or the turn's end. The live status line
 * on stderr is suspended while text is being written and drawn again after it.
 */
import { scrubSecrets, type AgentStreamEvent } from "@agentd/sdk";

/** The status line's part in it. */
export interface Suspendable {
  suspend(): void;
  resume(): void;
}

/** An answer being written to the terminal. */
export interface AnswerStream {
  /** Follow one event of the run. */
  event(e: AgentStreamEvent): void;
  /** Whether the final answer `text` was already written (so it is not printed again). */
  wrote(text: string): boolean;
}

/** Where the held-back tail starts: before the last two words (and any partial one). */
function holdFrom(pending: string): number {
  let cut = pending.length;
  for (let words = 0; words < 3; words++) {
    const space = pending.lastIndexOf(" ", cut - 1);
    if (space <= 0) return 0;
    cut = space;
  }
  return cut;
}

/** Write streamed text with `write`; see the module header. */
export function createAnswerStream(write: (s: string) => void, status?: Suspendable): AnswerStream {
  let pending = "";
  let turnText = "";
  let lastTurnText = "";
  let writing = false;
  const emit = (s: string) => {
    if (!s) return;
    if (!writing) {
      status?.suspend();
      writing = true;
    }
    write(scrubSecrets(s));
  };
  const flushLines = () => {
    const nl = pending.lastIndexOf("\n");
    if (nl >= 0) {
      emit(pending.slice(0, nl + 1));
      pending = pending.slice(nl + 1);
    }
    const cut = holdFrom(pending);
    if (cut > 0) {
      emit(pending.slice(0, cut));
      pending = pending.slice(cut);
    }
  };
  const endTurn = () => {
    emit(pending);
    pending = "";
    if (turnText && !turnText.endsWith("\n")) emit("\n");
    if (writing) status?.resume();
    writing = false;
    if (turnText) lastTurnText = turnText;
    turnText = "";
  };
  return {
    event(e) {
      if (e.type === "model-start") turnText = "";
      else if (e.type === "text-delta") {
        turnText += e.delta;
        pending += e.delta;
        flushLines();
      } else if (e.type === "model-end" || e.type === "finish") endTurn();
    },
    wrote: (text) => text !== "" && lastTurnText.trimEnd() === text.trimEnd(),
  };
}
