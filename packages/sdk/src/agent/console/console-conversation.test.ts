/**
 * A run's conversation through the console's run API (a real listener on 127.0.0.1): a run that continued a
 * conversation carries it — read as the run's owner reads it, its runs named as the history names them, its
 * latest messages one line per part, masked and bounded; a run that continued none carries nothing.
 */
import { afterEach, expect, test } from "bun:test";
import { nullLogger } from "../../log.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import { scopedRunId } from "../../serve/principal.ts";
import { RunRegistry } from "../../serve/run-registry.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../../transport/http-server/index.ts";
import { CONVERSATION_VIEW_LIMITS } from "./console-conversation.ts";
import { createConsoleMount, type ConsoleMount } from "./console-mount.ts";

const ALICE = "alice-conversation-unit-token";
const OPS = "ops-conversation-unit-token";
const auth = (t: string) => ({ authorization: `Bearer ${t}` });
const owner = "bearer:alice";

let server: StreamableHttpServer | undefined;
let mount: ConsoleMount | undefined;
afterEach(async () => {
  mount?.close();
  await server?.close();
  server = mount = undefined;
});

test("a run that continued a conversation shows it, masked and bounded, read as its owner; a run without one shows none", async () => {
  const registry = new RunRegistry();
  registry.start("r-2", "now draft replies", owner);
  // The record's link to its conversation (the run history sets it for runs that name one).
  Object.assign(registry.get("r-2", owner)!, { conversationId: "inbox" });
  registry.start("r-solo", "alone", owner);
  const messages: ModelMessage[] = [
    ...Array.from({ length: 30 }, (_, i): ModelMessage => ({ role: "user", content: `old question ${i}` })),
    { role: "user", content: `summarise the inbox; my key is sk-live-0123456789abcdef0123456789 ${"and more ".repeat(80)}` },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Reading it." },
        { type: "tool-call", toolCallId: "c1", toolName: "mail__list", input: { folder: "inbox", password: "hunter2-hunter2" } },
      ],
    },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "mail__list", output: "2 urgent" }] },
    { role: "assistant", content: [{ type: "text", text: "Two are urgent." }] },
  ];
  const asked: string[] = [];
  mount = createConsoleMount({
    registry,
    facts: {
      lifecycle: () => ({ state: "running" }),
      ready: async () => ({ ok: true }),
      conversations: {
        get: async (id, who) => {
          asked.push(`${id} ${who}`);
          const alice = { id: owner, role: "user" as const };
          return who === owner && id === "inbox"
            ? { id, title: "summarise the inbox", messages, runs: [scopedRunId(alice, "r-1"), scopedRunId(alice, "r-2")] }
            : undefined;
        },
      },
    },
    operators: new Set(),
    authRequired: true,
    operator: { tasks: { unfinished: () => [], cancel: () => ({}) as never } },
    logger: nullLogger,
  });
  server = await createStreamableHttpServer({
    hostname: "127.0.0.1",
    port: 0,
    auth: {
      bearerTokens: [
        { token: ALICE, name: "alice" },
        { token: OPS, name: "ops", role: "operator" },
      ],
    },
    onsession: () => {},
    mounts: [mount],
  });
  const run = async (t: string, id: string) =>
    (await (await fetch(new URL(`/console/api/run?id=${id}&principal=${owner}`, server!.url), { headers: auth(t) })).json()) as any;

  const seen = (await run(OPS, "r-2")).conversation;
  expect(asked).toEqual([`inbox ${owner}`]);
  expect(seen).toMatchObject({ id: "inbox", title: "summarise the inbox", messages: 34, runs: ["r-1", "r-2"], earlierLeftOut: true });
  expect(seen.latest).toHaveLength(CONVERSATION_VIEW_LIMITS.messages + 1);
  expect(seen.latest.slice(-4)).toEqual([
    { role: "assistant", kind: "text", text: "Reading it." },
    { role: "assistant", kind: "tool-call", text: expect.stringContaining('mail__list {"folder":"inbox","password":') },
    { role: "tool", kind: "tool-result", text: "mail__list: 2 urgent" },
    { role: "assistant", kind: "text", text: "Two are urgent." },
  ]);
  const text = JSON.stringify(seen);
  expect(text).not.toContain("sk-live-0123456789abcdef0123456789");
  expect(text).not.toContain("hunter2-hunter2");
  for (const l of seen.latest) expect(l.text.length).toBeLessThanOrEqual(CONVERSATION_VIEW_LIMITS.partChars);
  // Alice sees her own run's conversation the same way.
  expect((await run(ALICE, "r-2")).conversation.id).toBe("inbox");
  expect((await run(ALICE, "r-solo")).conversation).toBeUndefined();
});
