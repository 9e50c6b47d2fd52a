import { expect, test } from "bun:test";
import { createStreamMasker, MIN_HELD_PREFIX } from "./secret-stream.ts";
import { maskSecretValues, registerSecretValue } from "./secret-values.ts";

const SECRET = "stream-Secret-9Hw2Kd7Pq";
registerSecretValue(SECRET);
const TEXT = `the key is ${SECRET}, and ${SECRET}; done`;

/** The pieces a masker passes on for `pieces`, ended. */
function run(pieces: string[]): string[] {
  const m = createStreamMasker();
  const out = pieces.map((p) => m.push(p));
  out.push(m.end());
  return out.filter((p) => p !== "");
}

const inPieces = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

test("a secret split anywhere over two pieces never shows more than its first characters; the rest is masked", () => {
  for (let at = 1; at < TEXT.length; at++) {
    const joined = run([TEXT.slice(0, at), TEXT.slice(at)]).join("");
    expect(joined).not.toContain(SECRET.slice(0, MIN_HELD_PREFIX));
    expect(joined.match(/\[redacted\]/g)?.length).toBe(2);
  }
});

test("a secret streamed a few characters at a time is masked; the text around it is unchanged", () => {
  for (const size of [1, 2, 3, 5, 8]) {
    const joined = run(inPieces(TEXT, size)).join("");
    expect(joined).not.toContain(SECRET.slice(0, MIN_HELD_PREFIX));
    expect(joined.replace(/\S*\[redacted\]/g, "[redacted]")).toBe(maskSecretValues(TEXT).replace(/\S*\[redacted\]/g, "[redacted]"));
  }
  // Pieces that start where a secret starts lose nothing: the whole text comes out as masking it whole would.
  expect(run(["the key is ", "stream-Sec", "ret-9Hw2Kd7Pq", " ok"]).join("")).toBe("the key is [redacted] ok");
});

test("text that holds no secret start passes piece by piece, as it came", () => {
  const pieces = ["The answ", "er is 42", ", streams", " and s", "k- too"];
  expect(run(pieces)).toEqual(pieces);
});

test("what is held when the stream ends is passed on, masked if it is whole", () => {
  const m = createStreamMasker();
  expect(m.push("ends with stream-Se")).toBe("ends with ");
  expect(m.end()).toBe("stream-Se");
  const n = createStreamMasker();
  expect(n.push(`x ${SECRET.slice(0, 10)}`)).toBe("x ");
  expect(n.push(SECRET.slice(10))).toBe("[redacted]");
  expect(n.end()).toBe("");
});
