import { describe, expect, test } from "bun:test";
import type { ModelMessage } from "../../model/language-model.ts";
import { trimConversation } from "./trim-conversation.ts";

/** One exchange: a request, a signed thought with a tool call, its result, the answer. */
const exchange = (n: number, pad = 0): ModelMessage[] => [
  { role: "user", content: `question ${n}${"x".repeat(pad)}` },
  {
    role: "assistant",
    content: [
      { type: "reasoning", provider: "anthropic", text: `thinking ${n}`, signature: `sig-${n}` },
      { type: "tool-call", toolCallId: `call-${n}`, toolName: "fs__read", input: { n } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: `call-${n}`, toolName: "fs__read", output: `result ${n}` }] },
  { role: "assistant", content: [{ type: "text", text: `answer ${n}` }] },
];

/** Every tool result's call is in an earlier assistant message of the same list. */
const noOrphans = (messages: ModelMessage[]) => {
  const called = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const p of m.content) if (p.type === "tool-call") called.add(p.toolCallId);
    if (m.role === "tool") for (const p of m.content) expect(called.has(p.toolCallId)).toBe(true);
  }
};

describe("the growth policy", () => {
  test("within the bound nothing is dropped", () => {
    const messages = [...exchange(1), ...exchange(2)];
    expect(trimConversation(messages, { maxTokens: 1_000_000 }).messages).toEqual(messages);
  });

  test("drops the oldest whole turns, starts at a user message, never orphans a tool result, keeps signed reasoning as sent", () => {
    const messages = Array.from({ length: 10 }, (_, i) => exchange(i, 400)).flat();
    const cut = trimConversation(messages, { maxTokens: 400 });
    expect(cut.dropped % 4).toBe(0);
    expect(cut.dropped).toBeGreaterThan(0);
    expect(cut.messages[0]?.role).toBe("user");
    noOrphans(cut.messages);
    expect(cut.messages).toEqual(messages.slice(cut.dropped));
    expect(cut.tokens).toBeLessThanOrEqual(400);
  });

  test("counts as the model counted: the reported tokens decide, not the characters", () => {
    const messages = Array.from({ length: 4 }, (_, i) => exchange(i)).flat();
    // The model said these 16 messages took 100 tokens: within 150, nothing goes.
    expect(trimConversation(messages, { maxTokens: 150 }, { count: 100, messages: 16 }).dropped).toBe(0);
    // It said 1,000: half of it must go.
    const cut = trimConversation(messages, { maxTokens: 500 }, { count: 1_000, messages: 16 });
    expect(cut.dropped).toBe(8);
    expect(cut.tokens).toBeLessThanOrEqual(500);
  });

  test("the newest turn is kept whatever its size; a byte bound cuts too", () => {
    const messages = [...exchange(1), ...exchange(2, 5_000)];
    expect(trimConversation(messages, { maxTokens: 10 }).messages).toEqual(exchange(2, 5_000));
    const bytes = trimConversation([...exchange(1), ...exchange(2)], { maxTokens: Infinity, maxBytes: 700 });
    expect(bytes.messages).toEqual(exchange(2));
  });
});
