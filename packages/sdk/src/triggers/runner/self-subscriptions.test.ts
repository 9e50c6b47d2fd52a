/**
 * Subscriptions a run arranges for itself, through the tools the model is offered: subscribe + read at
 * once, idempotent per server and URI, bounded, scoped to the allowed servers, listed in the status with
 * the run that arranged them, and cancelled again. (Restart and the checkpoint: packages/cli/src/checkpoint.e2e.test.ts.)
 */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { FakeResourceClient } from "../__fixtures__/trigger-harness.ts";
import { createAgent } from "../../agent/create-agent.ts";
import { AgentTriggers } from "./agent-triggers.ts";
import { SelfSubscribeToolSet } from "./self-subscribe-tools.ts";
import { SelfSubscriptions } from "./self-subscriptions.ts";

let triggers: AgentTriggers | undefined;
afterEach(async () => {
  await triggers?.stop({ graceMs: 0 });
  triggers = undefined;
});

test("agent.subscribe adds a reactive trigger at run time: read at once, idempotent, bounded, scoped, listed, cancelled", async () => {
  const inbox = new FakeResourceClient();
  const orders = new FakeResourceClient();
  inbox.texts.set("file:///inbox", "i0");
  orders.texts.set("file:///a", "a0");
  orders.texts.set("file:///b", "b0");
  const logger = memoryLogger();
  const agent = createAgent({ model: scriptedModel(Array.from({ length: 20 }, () => reply("ok"))), tools: memoryToolSet([]), logger });
  const inputs: string[] = [];
  triggers = new AgentTriggers({
    agent: {
      connect: () => agent.connect(),
      run: (input, o) => (inputs.push(input), agent.run(input, o)),
      clients: new Map([
        ["inbox", inbox],
        ["orders", orders],
      ]),
    },
    specs: [
      {
        kind: "subscription",
        id: "sub:inbox:file:///inbox",
        server: "inbox",
        uri: "file:///inbox",
        instruction: "Inbox: {{resource.text}}",
      },
    ],
    logger,
  });
  const subs = new SelfSubscriptions({ triggers: () => triggers, max: 1, servers: ["orders"], logger });
  const tools = new SelfSubscribeToolSet(subs, memoryToolSet([{ name: "other", run: () => "other" }]));
  expect((await tools.list()).map((t) => t.name)).toEqual(["agent.subscribe", "agent.unsubscribe", "agent.subscriptions", "other"]);
  await triggers.start();
  const ctx = { runId: "run-dispatch", signal: new AbortController().signal };

  const first = await tools.call("agent.subscribe", { server: "orders", uri: "file:///a", instruction: "Order {{resource.text}}" }, ctx);
  expect(first).toMatchObject({
    isError: false,
    structuredContent: { status: "subscribed", id: "self:orders:file:///a", state: "active" },
  });
  expect(orders.subscribeCalls).toBe(1);
  // Read after subscribing: the current state runs at once; a change runs again.
  await orders.waitForCalls("read", 1);
  orders.set("file:///a", "a1");
  await orders.waitForCalls("read", 2);
  while (inputs.filter((i) => i.includes("a1")).length === 0) await new Promise<void>((r) => triggers?.on("run-end", () => r()));
  expect(inputs.some((i) => i.startsWith("Order") && i.includes("a0"))).toBe(true);
  expect(triggers.status().find((s) => s.id === "self:orders:file:///a")).toMatchObject({
    state: "active",
    arrangedBy: "run-dispatch",
    server: "orders",
  });

  const again = await tools.call("agent.subscribe", { server: "orders", uri: "file:///a", instruction: "something else" }, ctx);
  expect(again.structuredContent).toMatchObject({ status: "already-subscribed" });
  expect(orders.subscribeCalls).toBe(1);
  const over = await tools.call("agent.subscribe", { server: "orders", uri: "file:///b", instruction: "B" }, ctx);
  expect(over).toMatchObject({ isError: true, text: expect.stringContaining("1 of at most 1") });
  const outside = await tools.call("agent.subscribe", { server: "inbox", uri: "file:///inbox", instruction: "X" }, ctx);
  expect(outside).toMatchObject({ isError: true, text: expect.stringContaining("server 'inbox' is not one runs may subscribe to") });
  const badTemplate = await new SelfSubscriptions({ triggers: () => triggers, servers: ["orders"] })
    .add({ server: "orders", uri: "file:///b", instruction: "{{tick}}" }, "r")
    .catch((e: Error) => e.message);
  expect(badTemplate).toContain("subscription refused");

  const listed = await tools.call("agent.subscriptions", {}, ctx);
  expect(listed.structuredContent).toMatchObject({
    max: 1,
    subscriptions: [{ id: "self:orders:file:///a", arrangedBy: "run-dispatch", instruction: "Order {{resource.text}}" }],
  });
  expect(await tools.call("other", {}, ctx)).toMatchObject({ text: "other", isError: false });

  expect(await tools.call("agent.unsubscribe", { server: "orders", uri: "file:///a" }, ctx)).toMatchObject({
    isError: false,
    structuredContent: { removed: true },
  });
  expect(orders.unsubscribeCalls).toBe(1);
  expect(triggers.status().map((s) => s.id)).toEqual(["sub:inbox:file:///inbox"]);
  expect(await tools.call("agent.unsubscribe", { server: "orders", uri: "file:///a" }, ctx)).toMatchObject({ isError: true });
  // The slot is free again.
  expect(
    (await tools.call("agent.subscribe", { server: "orders", uri: "file:///b", instruction: "B {{resource.text}}" }, ctx)).isError,
  ).toBe(false);
  expect(logger.records.filter((r) => r.event === "trigger.self-subscribed").map((r) => r.trigger)).toEqual([
    "self:orders:file:///a",
    "self:orders:file:///b",
  ]);
});
