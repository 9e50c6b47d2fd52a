/** Peers' text shown on a terminal: every character a terminal would obey is written as an escape. */
import { describe, expect, test } from "bun:test";
import { forTerminal } from "./terminal-text.ts";

describe("forTerminal", () => {
  test("title, clipboard and clear-screen sequences, 8-bit CSI, DEL, bidi overrides and a lone CR are escaped", () => {
    const hostile = "a\x1b]0;pwned\x07b\x1b]52;c;ZXZpbA==\x07c\x1b[2Jd\x9b31me\x7ff\u202eg\rh\u2028i";
    const shown = forTerminal(hostile);
    expect(shown).toBe("a\\u001b]0;pwned\\u0007b\\u001b]52;c;ZXZpbA==\\u0007c\\u001b[2Jd\\u009b31me\\u007ff\\u202eg\\rh\\u2028i");
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    // The same characters as JSON would write them.
    expect(forTerminal("\x1b\x07\n\t")).toBe(JSON.stringify("\x1b\x07\n\t").slice(1, -1));
  });

  test("one line by default; with lines, newlines and tabs stay and CRLF becomes LF", () => {
    expect(forTerminal("a\nb\tc")).toBe("a\\nb\\tc");
    expect(forTerminal("a\r\nb\tc\x1b[2J\rd", { lines: true })).toBe("a\nb\tc\\u001b[2J\\rd");
  });

  test("ordinary text, emoji and other scripts are left as they are", () => {
    for (const text of ["plain", "naïve café — 東京 👩‍💻 ✔︎", 'quote " and \\ backslash'])
      expect(forTerminal(text, { lines: true })).toBe(text);
  });
});
