/**
 * A bound on how deeply a JSON text nests, checked on the raw text before `JSON.parse`.
 *
 * `JSON.parse` itself copes with deep nesting, but every recursive walk after it (`JSON.stringify`, schema
 * validation, cloning) overflows the stack on a value nested tens of thousands of levels — and the engine
 * takes about a second to unwind each overflow, stalling the event loop for every caller. So a text is
 * refused before anything walks it: one linear pass counting `[` and `{` outside strings. A text of at most
 * `2 × max + 1` characters cannot hold a valid value nested deeper than `max` (each level opens and closes),
 * so short messages — nearly all of them — skip the pass.
 */

/** The nesting depth refused by default: deeper than any schema or data a real caller sends. */
export const MAX_JSON_DEPTH = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Whether `text`, read as JSON, nests arrays and objects more than `max` levels deep. Linear, never recursive. */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  if (text.length <= 2 * max + 1) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: jump to each next quote, and stop at one not escaped by an odd run of backslashes.
      for (;;) {
        const q = text.indexOf('"', i + 1);
        if (q === -1) return false; // unterminated: JSON.parse refuses it
        let b = q - 1;
        while (text.charCodeAt(b) === BACKSLASH) b--;
        i = q;
        if ((q - 1 - b) % 2 === 0) break;
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return false;
}

/** The one line that refuses a too-deep JSON text, naming the limit. */
export const jsonDepthMessage = (max = MAX_JSON_DEPTH): string => `JSON nested more than ${max} levels deep is refused`;
