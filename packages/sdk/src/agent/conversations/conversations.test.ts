/**
 * Conversations over the real local state directory (a directory store opened per operation) and a real
 * agent with a scripted model: what the model is sent, what is saved, who may read it, the bounds.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "../../log.ts";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { callTools, reply, type Step, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import { AgentdError } from "../../wire/errors.ts";
import { createAgent } from "../create-agent.ts";
import type { Conversation, ConversationStore } from "./conversation.ts";
import { DocumentConversationStore } from "./document-conversations.ts";
import { LocalDocuments, localConversationsDir } from "./local-documents.ts";
import { SUMMARY_MARK } from "./summarise-conversation.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "agentd-conv-"));
  dirs.push(d);
  return d;
};
const storeIn = (dir: string, bounds = {}, now?: () => number) =>
  new DocumentConversationStore(async () => new LocalDocuments(dir), bounds, now);
const conversation = (id: string, owner: string, at = "2026-01-01T00:00:00.000Z"): Conversation => ({
  id,
  owner,
  title: id,
  messages: [{ role: "user", content: "hi" }],
  createdAt: at,
  updatedAt: at,
  runs: [],
  dropped: 0,
});

describe("the conversation store", () => {
  test("the local state directory: $XDG_STATE_HOME/agentd, else ~/.local/state/agentd", () => {
    expect(localConversationsDir({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/agentd/conversations");
    expect(localConversationsDir({ HOME: "/h" })).toBe("/h/.local/state/agentd/conversations");
  });

  test("compare-and-set: a writer at a stale version loses", async () => {
    const store = storeIn(tempDir());
    expect(await store.save(conversation("a", "alice"), 0)).toEqual({ ok: true, version: 1 });
    expect(await store.save(conversation("a", "alice"), 0)).toEqual({ ok: false });
    expect(await store.save(conversation("a", "alice"), 1)).toEqual({ ok: true, version: 2 });
    expect(await store.save(conversation("a", "alice"), 1)).toEqual({ ok: false });
  });

  test("each owner sees, continues and deletes only their own; ids are per owner", async () => {
    const store = storeIn(tempDir());
    await store.save(conversation("a-thread", "alice"), 0);
    await store.save(conversation("shared-name", "bob"), 0);
    await store.save(conversation("shared-name", "alice"), 0);
    expect((await store.list("alice")).map((c) => c.id).sort()).toEqual(["a-thread", "shared-name"]);
    expect((await store.list("bob")).map((c) => c.id)).toEqual(["shared-name"]);
    expect(await store.get("a-thread", "bob")).toBeUndefined();
    expect(await store.delete("a-thread", "bob")).toBe(false);
    expect(await store.heldByAnother("a-thread", "bob")).toBe(true);
    expect(await store.heldByAnother("nope", "bob")).toBe(false);
    expect((await store.get("a-thread", "alice"))?.conversation.owner).toBe("alice");
    expect(await store.delete("shared-name", "bob")).toBe(true);
    expect((await store.get("shared-name", "alice"))?.conversation.owner).toBe("alice");
  });

  test("bounded per owner in count (the least recently updated goes) and expired after the retention", async () => {
    let now = Date.parse("2026-01-10T00:00:00Z");
    const store = storeIn(tempDir(), { maxConversations: 2, retentionMs: 1_000 }, () => now);
    await store.save(conversation("old", "alice", "2026-01-01T00:00:00.000Z"), 0);
    await store.save(conversation("mid", "alice", "2026-01-02T00:00:00.000Z"), 0);
    await store.save(conversation("new", "alice", "2026-01-03T00:00:00.000Z"), 0);
    expect((await store.list("alice")).map((c) => c.id)).toEqual(["new", "mid"]);
    now += 1_001;
    expect(await store.get("new", "alice")).toBeUndefined();
    expect(await store.list("alice")).toEqual([]);
  });

  test("a conversation over its byte bound is refused, not half written", async () => {
    const store = storeIn(tempDir(), { maxBytes: 300 });
    const big = { ...conversation("big", "alice"), messages: [{ role: "user" as const, content: "x".repeat(400) }] };
    expect(await store.save(big, 0).catch((e: unknown) => (e as Error).message)).toContain("over its bound");
  });

  test("the byte bound is the stored document's exact JSON size; a message of no known role is not read as the owner's", async () => {
    const now = () => Date.parse("2026-01-10T00:00:00Z");
    const messages = [
      { role: "user" as const, content: 'é ünïcode \u2028 and "quotes"' },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "answer" }] },
      { role: "tool" as const, content: [{ type: "tool-result" as const, toolCallId: "c", toolName: "t", output: "out" }] },
    ];
    const c = { ...conversation("exact", "alice"), messages };
    const size = Buffer.byteLength(
      JSON.stringify({ format: "agentd.conversation-thread", version: 1, expiresAt: now() + 30 * 86_400_000, conversation: c }),
    );
    const bounded = (maxBytes: number) => new DocumentConversationStore(async () => new LocalDocuments(tempDir()), { maxBytes }, now);
    expect(await bounded(size).save(c, 0)).toEqual({ ok: true, version: 1 });
    expect(
      await bounded(size - 1)
        .save(c, 0)
        .catch((e: unknown) => (e as Error).message),
    ).toContain(`is ${size} bytes`);
    const dir = tempDir();
    const store = storeIn(dir);
    await store.save(c, 0);
    const documents = new LocalDocuments(dir);
    const [listed] = await documents.list("conversation/");
    const stored = (await documents.get(listed!.key))!.value as { conversation: Conversation };
    const odd = { ...stored, conversation: { ...stored.conversation, messages: [{ role: "system", content: "x" }] } };
    expect((await documents.compareAndSet(listed!.key, listed!.version, odd)).ok).toBe(true);
    expect(await store.get("exact", "alice").catch((e: unknown) => (e as Error).message)).toContain("belongs to another principal");
  });
});

describe("agent.run with a conversation", () => {
  test("a follow-up sends the earlier exchange back (tool turns and all); result names it; list/get/delete by owner", async () => {
    const dir = tempDir();
    const model = scriptedModel([callTools([["fs__read", { path: "inbox" }]]), reply("two urgent mails"), reply("drafted")]);
    const tools = memoryToolSet([{ name: "fs/read", run: () => "mail 1, mail 2" }]);
    await using agent = createAgent({ model, tools, logger: memoryLogger(), conversations: { store: storeIn(dir), principal: "alice" } });
    const first = await agent.run("summarise the inbox", { conversation: { new: true } });
    expect(first.conversationId).toMatch(/^c-/);
    const second = await agent.run("now draft replies", { conversation: first.conversationId });
    expect(second.conversationId).toBe(first.conversationId);
    const sent = model.requests[2]!.messages.slice(1);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[0]).toEqual({ role: "user", content: "summarise the inbox" });
    expect(sent.at(-1)).toEqual({ role: "user", content: "now draft replies" });
    const saved = await agent.conversations.get(first.conversationId!);
    expect(saved?.messages).toHaveLength(6);
    expect(saved?.runs).toEqual([first.runId, second.runId]);
    expect(saved?.tokens).toEqual({ count: 15, messages: 6 });
    expect((await agent.conversations.list()).map((c) => c.id)).toEqual([first.conversationId!]);
    expect(await agent.conversations.list({ principal: "bob" })).toEqual([]);
    const refused = await agent.run("peek", { conversation: { id: first.conversationId! }, principal: "bob" }).catch((e: unknown) => e);
    expect(AgentdError.isInstance(refused) && refused.message).toContain("belongs to another principal");
    expect(await agent.conversations.get(first.conversationId!, { principal: "bob" })).toBeUndefined();
    expect(await agent.conversations.delete(first.conversationId!, { principal: "bob" })).toBe(false);
    expect(await agent.conversations.delete(first.conversationId!)).toBe(true);
    const gone = await agent.run("again", { conversation: { id: first.conversationId! } }).catch((e: unknown) => e);
    expect(AgentdError.isInstance(gone) && gone.options.data?.reason).toBe("conversation-unknown");
  });

  test("a named conversation is created on first use; stream() carries it; runs on one are serialised in order", async () => {
    const model = scriptedModel([reply("one"), reply("two"), reply("three")]);
    await using agent = createAgent({
      model,
      tools: memoryToolSet([]),
      logger: memoryLogger(),
      conversations: { store: storeIn(tempDir()) },
    });
    const [a, b] = await Promise.all([
      agent.run("first", { conversation: "nightly-triage" }),
      agent.run("second", { conversation: "nightly-triage" }),
    ]);
    expect([a.conversationId, b.conversationId]).toEqual(["nightly-triage", "nightly-triage"]);
    let finish: unknown;
    for await (const e of agent.stream("third", { conversation: "nightly-triage" })) if (e.type === "finish") finish = e;
    expect(finish).toMatchObject({ status: "ok", conversationId: "nightly-triage" });
    // The third request carried both earlier exchanges, in the order they ran.
    expect(model.requests[2]!.messages.slice(1).map((m) => (m.role === "user" ? m.content : m.role))).toEqual([
      "first",
      "assistant",
      "second",
      "assistant",
      "third",
    ]);
    expect((await agent.conversations.get("nightly-triage"))?.owner).toBe("local");
  });

  test("without a conversation nothing is loaded or saved, and the result names none", async () => {
    const model = scriptedModel([reply("ok")]);
    const dir = tempDir();
    await using agent = createAgent({ model, tools: memoryToolSet([]), logger: memoryLogger(), conversations: { store: storeIn(dir) } });
    const r = await agent.run("hello");
    expect(r.conversationId).toBeUndefined();
    expect(await agent.conversations.list()).toEqual([]);
    expect(model.requests[0]!.messages.slice(1)).toEqual([{ role: "user", content: "hello" }]);
  });
});

describe("growth: summarise", () => {
  /** One exchange: a request, a signed thought with a tool call, its result, the answer. */
  const exchange = (n: number) => [
    { role: "user" as const, content: `question ${n} ${"q".repeat(120)}` },
    {
      role: "assistant" as const,
      content: [
        { type: "reasoning" as const, provider: "scripted", text: `thinking ${n}`, signature: `sig-${n}` },
        { type: "tool-call" as const, toolCallId: `call-${n}`, toolName: "fs__read", input: { n } },
      ],
    },
    {
      role: "tool" as const,
      content: [{ type: "tool-result" as const, toolCallId: `call-${n}`, toolName: "fs__read", output: `result ${n}` }],
    },
    { role: "assistant" as const, content: [{ type: "text" as const, text: `answer ${n} ${"a".repeat(120)}` }] },
  ];
  const SUMMARY_USAGE = { inputTokens: 300, outputTokens: 40, totalTokens: 340 };
  const seeded = async (store: DocumentConversationStore) =>
    store.save({ ...conversation("long", "local"), messages: Array.from({ length: 10 }, (_, i) => exchange(i)).flat() }, 0);
  const textOf = (m: ModelMessage | undefined) =>
    m?.role === "user" ? m.content : m?.role === "assistant" ? m.content.map((p) => (p.type === "text" ? p.text : "")).join("") : "";

  test("the cut turns go to the model as a transcript; the next request carries its summary in their place; usage includes it", async () => {
    const store = storeIn(tempDir());
    await seeded(store);
    const model = scriptedModel([reply("They read files 0 to 7.", SUMMARY_USAGE), reply("done")]);
    const logger = memoryLogger();
    await using agent = createAgent({
      model,
      tools: memoryToolSet([]),
      logger,
      conversations: { store, maxTokens: 800, growth: "summarise" },
    });
    const r = await agent.run("next", { conversation: "long" });
    // The summary request: the cut turns as one transcript, no tools, their reasoning left out whole.
    const asked = model.requests[0]!;
    expect(asked.tools).toBeUndefined();
    const transcript = textOf(asked.messages.at(-1));
    expect(transcript).toContain("User: question 0");
    expect(transcript).toContain('Assistant called tool fs__read with {"n":0}');
    expect(transcript).toContain("Tool fs__read returned: result 0");
    expect(transcript).not.toContain("thinking 0");
    const dropped = r.conversationSummary!.messages;
    expect(dropped % 4).toBe(0);
    expect(transcript).toContain(`question ${dropped / 4 - 1} `);
    expect(transcript).not.toContain(`question ${dropped / 4} `);
    // The run's request: the summary pair, then the kept turns whole (signed blocks as they were), then the input.
    const sent = model.requests[1]!.messages.slice(1);
    expect(textOf(sent[0])).toStartWith(SUMMARY_MARK);
    expect(textOf(sent[1])).toBe("They read files 0 to 7.");
    expect(sent[2]).toEqual(exchange(dropped / 4)[0]!);
    expect(sent[3]).toEqual(exchange(dropped / 4)[1]!);
    expect(sent.map(textOf).join("\n")).not.toContain("question 0 ");
    expect(sent.at(-1)).toEqual({ role: "user", content: "next" });
    expect(r.usage).toEqual({ inputTokens: 310, outputTokens: 45, totalTokens: 355 });
    expect(r.conversationSummary).toEqual({ messages: dropped, usage: SUMMARY_USAGE });
    const saved = await agent.conversations.get("long");
    expect(saved).toMatchObject({ dropped, summaries: 1 });
    expect(textOf(saved!.messages[0])).toStartWith(SUMMARY_MARK);
    expect(logger.records.filter((l) => l.event === "conversation.summarised")).toHaveLength(1);
  });

  test("the summary request counts against the run's token budget, and in its cost", async () => {
    const store = storeIn(tempDir());
    await seeded(store);
    const model = scriptedModel([reply("A summary.", SUMMARY_USAGE), reply("done")]);
    const conversations = { store, maxTokens: 800, growth: "summarise" as const };
    await using agent = createAgent({ model, tools: memoryToolSet([]), logger: memoryLogger(), limits: { maxTokens: 350 }, conversations });
    const e = await agent.run("next", { conversation: "long" }).catch((x: unknown) => x);
    expect(AgentdError.isInstance(e) && e.code).toBe("E_BUDGET_TOKENS");
    expect(AgentdError.isInstance(e) && e.options.data?.usage).toEqual({ inputTokens: 310, outputTokens: 45, totalTokens: 355 });
    const again = storeIn(tempDir());
    await seeded(again);
    const priced = scriptedModel([reply("A summary.", SUMMARY_USAGE), reply("done")]);
    const prices = { inputPerMTokUsd: 1_000_000, outputPerMTokUsd: 0 };
    await using costed = createAgent({
      model: priced,
      tools: memoryToolSet([]),
      logger: memoryLogger(),
      prices,
      conversations: { ...conversations, store: again },
    });
    let cost: number | undefined;
    await costed.run("next", { conversation: "long", onEvent: (ev) => ev.type === "run-end" && (cost = ev.costUsd) });
    expect(cost).toBe(310);
  });

  test("a failed summary request falls back to dropping, logged once; the run goes on", async () => {
    const store = storeIn(tempDir());
    await seeded(store);
    const failing: Step = () => Promise.reject(new Error("gateway said 500"));
    const model = scriptedModel([failing, reply("done")]);
    const logger = memoryLogger();
    await using agent = createAgent({
      model,
      tools: memoryToolSet([]),
      logger,
      conversations: { store, maxTokens: 800, growth: "summarise" },
    });
    const r = await agent.run("next", { conversation: "long" });
    expect(r.text).toBe("done");
    expect(r.conversationSummary).toBeUndefined();
    expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    const failed = logger.records.filter((l) => l.event === "conversation.summary-failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.level).toBe("warn");
    // As under "drop": whole turns cut to the bound, no summary, no orphaned tool result.
    const sent = model.requests[1]!.messages.slice(1);
    expect(sent[0]?.role).toBe("user");
    expect(textOf(sent[0])).not.toContain(SUMMARY_MARK);
    const dropAlone = storeIn(tempDir());
    await seeded(dropAlone);
    const plain = scriptedModel([reply("done")]);
    await using dropping = createAgent({
      model: plain,
      tools: memoryToolSet([]),
      logger: memoryLogger(),
      conversations: { store: dropAlone, maxTokens: 800 },
    });
    await dropping.run("next", { conversation: "long" });
    expect(sent).toEqual(plain.requests[0]!.messages.slice(1));
    expect((await agent.conversations.get("long"))?.summaries).toBeUndefined();
  });
});

describe("saving", () => {
  test("turns that end while a save is being written are saved once, as the newest; the last save holds everything", async () => {
    const inner = storeIn(tempDir());
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const saves: number[] = [];
    const store: ConversationStore = {
      get: (id, owner) => inner.get(id, owner),
      list: (owner) => inner.list(owner),
      delete: (id, owner) => inner.delete(id, owner),
      async save(c, version) {
        saves.push(c.messages.length);
        if (saves.length === 1) await gate;
        return inner.save(c, version);
      },
    };
    const model = scriptedModel([
      callTools([["fs__read", { path: "a" }]]),
      callTools([["fs__read", { path: "b" }]]),
      callTools([["fs__read", { path: "c" }]]),
      () => {
        release();
        return reply("done");
      },
    ]);
    const tools = memoryToolSet([{ name: "fs/read", run: () => "text" }]);
    await using agent = createAgent({ model, tools, logger: memoryLogger(), conversations: { store } });
    await agent.run("read three", { conversation: "reads" });
    // The first save held the second and third turns back: they were written once, with (or before) the answer.
    expect(saves.length).toBeLessThanOrEqual(3);
    expect(saves[0]).toBe(3);
    expect(saves.at(-1)).toBe(8);
    expect((await agent.conversations.get("reads"))?.messages).toHaveLength(8);
  });
});
