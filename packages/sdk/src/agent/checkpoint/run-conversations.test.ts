/** The conversation tier on a real directory store: saved, resumed, bounded in size, expired. */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "../../log.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import { conversationKey, RunConversations } from "./run-conversations.ts";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function setup(options: { maxBytes?: number; ttlMs?: number } = {}) {
  const backend = new DirectoryBackend(mkdtempSync(join(tmpdir(), "agentd-conv-")));
  cleanup.push(
    () => rmSync(backend.dir, { recursive: true, force: true }),
    () => backend.close(),
  );
  const logger = memoryLogger();
  let clock = 1_000_000;
  const conversations = new RunConversations({ store: async () => backend, logger, now: () => clock, ...options });
  cleanup.push(() => conversations.close());
  return { backend, logger, conversations, advance: (ms: number) => (clock += ms) };
}

const turn = (text: string): ModelMessage[] => [
  { role: "user", content: "Work: job 1" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "thinking", provider: "anthropic", signature: "sig" },
      { type: "tool-call", toolCallId: "c1", toolName: "first", input: { text } },
    ],
  },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "first", output: text }] },
];

test("a saved conversation is loaded back as it was (reasoning parts and their signatures included), and deleted at the end of the run", async () => {
  const { backend, conversations } = setup();
  await conversations.open("run-1").save(turn("a"));
  expect(await conversations.load("run-1")).toEqual(turn("a"));
  expect(await conversations.load("run-2")).toBeUndefined();
  await conversations.open("run-1").end();
  expect(await backend.get(conversationKey("run-1"))).toBeUndefined();
});

test("over maxBytes: not written, one warning line, and the conversation saved before is deleted", async () => {
  const { backend, logger, conversations } = setup({ maxBytes: 1000 });
  const run1 = conversations.open("run-1");
  await run1.save(turn("small"));
  expect(await backend.get(conversationKey("run-1"))).toBeDefined();
  await run1.save(turn("x".repeat(2000)));
  await run1.save(turn("y".repeat(3000)));
  expect(await backend.get(conversationKey("run-1"))).toBeUndefined();
  expect(await conversations.load("run-1")).toBeUndefined();
  const warnings = logger.records.filter((r) => r.event === "conversation.too-large");
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ runId: "run-1", maxBytes: 1000 });
});

test("past its ttl a saved conversation is ignored and deleted", async () => {
  const { backend, logger, conversations, advance } = setup({ ttlMs: 60_000 });
  await conversations.open("run-1").save(turn("a"));
  advance(59_000);
  expect(await conversations.load("run-1")).toEqual(turn("a"));
  advance(2_000);
  expect(await conversations.load("run-1")).toBeUndefined();
  expect(await backend.get(conversationKey("run-1"))).toBeUndefined();
  expect(logger.records.some((r) => r.event === "conversation.expired")).toBe(true);
});

test("a document that is not a conversation of this run is ignored with one warning", async () => {
  const { backend, logger, conversations } = setup();
  await backend.put(conversationKey("run-1"), {
    format: "agentd.conversation",
    version: 1,
    runId: "run-other",
    expiresAt: 9e15,
    messages: [],
  });
  expect(await conversations.load("run-1")).toBeUndefined();
  await backend.put(conversationKey("run-2"), { something: "else" });
  expect(await conversations.load("run-2")).toBeUndefined();
  expect(logger.records.filter((r) => r.event === "conversation.ignored")).toHaveLength(2);
});

test("a conversation whose run never runs again is swept once expired; live ones stay", async () => {
  const { backend, conversations, advance } = setup({ ttlMs: 60_000 });
  await conversations.open("abandoned").save(turn("a"));
  advance(30_000);
  await conversations.open("live").save(turn("b"));
  expect(await conversations.sweepExpired()).toEqual({ checked: 2, deleted: 0 });
  advance(30_000);
  expect(await conversations.sweepExpired()).toEqual({ checked: 2, deleted: 1 });
  expect(await backend.get(conversationKey("abandoned"))).toBeUndefined();
  expect(await conversations.load("live")).toEqual(turn("b"));
});

test("run ids that are not valid keys get distinct keys (a digest), never a shared conversation", async () => {
  const { conversations } = setup();
  expect(conversationKey("order-17@0a1b2c3d4e5f")).toBe("conversations/order-17@0a1b2c3d4e5f");
  const [slash, underscore] = [conversationKey("order/17"), conversationKey("order_17")];
  expect(slash).not.toBe(underscore);
  expect(slash).toMatch(/^conversations\/sha256:[0-9a-f]{64}$/);
  expect(conversationKey("x".repeat(181))).not.toBe(conversationKey(`${"x".repeat(181)}y`));
  await conversations.open("order/17").save(turn("slash"));
  await conversations.open("order 17").save(turn("space"));
  expect(await conversations.load("order/17")).toEqual(turn("slash"));
  expect(await conversations.load("order 17")).toEqual(turn("space"));
});
