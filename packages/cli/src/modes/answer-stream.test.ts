import { expect, test } from "bun:test";
import type { AgentStreamEvent } from "@agentd/sdk";
import { createAnswerStream } from "./answer-stream.ts";

const ev = (e: Record<string, unknown>) => e as unknown as AgentStreamEvent;
const delta = (d: string) => ev({ type: "text-delta", runId: "r", turn: 1, delta: d });

test("text is written as it comes, at word boundaries, and the turn's end flushes it with a line end", () => {
  const out: string[] = [];
  const s = createAnswerStream((t) => out.push(t));
  s.event(ev({ type: "model-start", turn: 1 }));
  for (const d of ["The answer ", "is forty", "-two, as ", "the book ", "says"]) s.event(delta(d));
  // Written before the turn ended: all but the last words.
  expect(out.join("")).toBe("The answer is forty-two, as");
  s.event(ev({ type: "model-end", turn: 1 }));
  s.event(ev({ type: "finish", status: "ok" }));
  expect(out.join("")).toBe("The answer is forty-two, as the book says\n");
  expect(s.wrote("The answer is forty-two, as the book says")).toBe(true);
  expect(s.wrote("something else")).toBe(false);
});

test("a line end writes the whole line at once; a turn that calls tools ends its own line", () => {
  const out: string[] = [];
  const s = createAnswerStream((t) => out.push(t));
  s.event(ev({ type: "model-start", turn: 1 }));
  s.event(delta("Let me look.\nOne"));
  expect(out.join("")).toBe("Let me look.\n");
  s.event(ev({ type: "model-end", turn: 1 }));
  s.event(ev({ type: "model-start", turn: 2 }));
  s.event(delta("Done."));
  s.event(ev({ type: "model-end", turn: 2 }));
  expect(out.join("")).toBe("Let me look.\nOne\nDone.\n");
  // Only the last turn is the answer.
  expect(s.wrote("Done.")).toBe(true);
});

test("a credential split across deltas is still masked, a Bearer pair included", () => {
  const out: string[] = [];
  const s = createAnswerStream((t) => out.push(t));
  s.event(ev({ type: "model-start", turn: 1 }));
  for (const d of ["the key is sk-abcd", "efgh1234", "5678 and the header Bearer ", "abcdefgh", "12345 then more words ", "follow here"])
    s.event(delta(d));
  s.event(ev({ type: "finish", status: "ok" }));
  const written = out.join("");
  expect(written).not.toContain("abcdefgh");
  expect(written).toBe("the key is [redacted] and the header Bearer [redacted] then more words follow here\n");
});

test("the status line is suspended while text is written and drawn again after", () => {
  const calls: string[] = [];
  const s = createAnswerStream(() => calls.push("write"), { suspend: () => calls.push("suspend"), resume: () => calls.push("resume") });
  s.event(ev({ type: "model-start", turn: 1 }));
  s.event(delta("a b c d e f"));
  s.event(ev({ type: "model-end", turn: 1 }));
  expect(calls[0]).toBe("suspend");
  expect(calls.at(-1)).toBe("resume");
  expect(calls.filter((c) => c === "suspend")).toHaveLength(1);
});
