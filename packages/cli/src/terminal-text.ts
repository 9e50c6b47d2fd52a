/**
 * Text from a peer on its way to a person's terminal: what a server, a model or another principal wrote (a
 * run's instruction, a state, a run id, an error code or message, a tool's name or description, a server's
 * stderr line). A terminal obeys control characters in what it prints: `ESC]0;…BEL` sets the window title,
 * `ESC]52;c;…BEL` writes the clipboard, `ESC[2J` clears the screen, a lone `\r` or the 8-bit CSI (U+009B)
 * overwrites what was shown, and bidi overrides reorder it. So every such character is written as an escape,
 * the way `--json` writes it (`\u001b`, `\n`), and the person sees that it was there instead of obeying it.
 *
 * One helper for every human-readable output; `--json` output is JSON and needs none. Our own colours and
 * cursor moves are added after this, around the escaped text.
 */

// Control characters (C0, DEL, C1), bidi embeddings, overrides, isolates and marks, line and paragraph separators.
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;
const UNSAFE_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;
const SHORT: Record<string, string> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" };

const escaped = (ch: string) => SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every character a terminal would obey written as an escape (`\u001b`, `\r`, `\u202e`).
 * `lines: true` keeps newlines and tabs (a tool's result, a resource, a model's answer; `\r\n` becomes `\n`);
 * otherwise the text stays on one line (a table cell, a status line).
 */
export function forTerminal(text: string, options: { lines?: boolean } = {}): string {
  if (options.lines) return text.replace(/\r\n/g, "\n").replace(UNSAFE_BUT_LINES, escaped);
  return text.replace(UNSAFE, escaped);
}
