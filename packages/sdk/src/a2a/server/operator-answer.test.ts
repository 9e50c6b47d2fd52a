/** The operator's answer to an elicitation: each way to say it, and the refusals that say what to fix. */
import { expect, test } from "bun:test";
import type { Message } from "../shared/types.ts";
import { answerOf, ELICITATION_ACTION_KEY } from "./operator-answer.ts";

const schema = { type: "object", properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } }, required: ["name"] };
const msg = (parts: Message["parts"], metadata?: Record<string, unknown>): Message => ({
  messageId: "m",
  role: "ROLE_USER",
  parts,
  metadata,
});

test("a data part, or a text part holding a JSON object, is accepted once it satisfies the schema", () => {
  expect(answerOf(msg([{ data: { name: "Ada", age: 36 } }]), schema)).toEqual({ action: "accept", content: { name: "Ada", age: 36 } });
  expect(answerOf(msg([{ text: ' {"name":"Ada"} ' }]), schema)).toEqual({ action: "accept", content: { name: "Ada" } });
});

test("decline and cancel: the word, or the metadata key", () => {
  expect(answerOf(msg([{ text: "Decline" }]), schema)).toEqual({ action: "decline" });
  expect(answerOf(msg([{ text: "cancel" }]), schema)).toEqual({ action: "cancel" });
  expect(answerOf(msg([{ data: { name: "x" } }], { [ELICITATION_ACTION_KEY]: "decline" }), schema)).toEqual({ action: "decline" });
});

test("refusals say what to fix", () => {
  expect(() => answerOf(msg([{ data: { age: -1 } }]), schema)).toThrow("does not satisfy the requested schema");
  expect(() => answerOf(msg([{ text: "Ada" }]), schema)).toThrow("needs a data part");
  expect(() => answerOf(msg([{ data: { name: "x" } }], { [ELICITATION_ACTION_KEY]: "maybe" }), schema)).toThrow(
    'must be "accept", "decline" or "cancel"',
  );
});
