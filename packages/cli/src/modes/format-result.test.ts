/** A run's answer on stdout: escaped for a terminal, byte for byte to a pipe. */
import { expect, test } from "bun:test";
import { answerFor } from "./format-result.ts";

test("on a terminal a model's control characters are escaped (lines kept); to a pipe the answer is unchanged", () => {
  const answer = "Done.\n\x1b]52;c;ZXZpbA==\x07\tok\r\n";
  expect(answerFor({ isTTY: true }, answer)).toBe("Done.\n\\u001b]52;c;ZXZpbA==\\u0007\tok\n");
  expect(answerFor({ isTTY: false }, answer)).toBe(answer);
  expect(answerFor({}, answer)).toBe(answer);
});
