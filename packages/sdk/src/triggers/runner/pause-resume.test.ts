/**
 * Pausing and resuming triggers: a paused subscription is unsubscribed, so a change made meanwhile runs
 * nothing; resuming subscribes and reads again, so the latest state runs once (the restart's
 * reconciliation); intermediate states are not caught up. Unknown ids are one line naming the triggers.
 */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { FakeResourceClient } from "../__fixtures__/trigger-harness.ts";
import { createAgent } from "../../agent/create-agent.ts";
import { AgentTriggers } from "./agent-triggers.ts";
import type { TriggerSpec } from "./trigger-specs.ts";

const URI = "file:///inbox.md";
let triggers: AgentTriggers | undefined;
afterEach(async () => {
  await triggers?.stop({ graceMs: 0 });
  triggers = undefined;
});

test("a paused subscription runs nothing; resumed, it reads again and runs the latest state once", async () => {
  const inbox = new FakeResourceClient();
  inbox.texts.set(URI, "state:zero"); // ":" is never in a fence id (base32), so the match below cannot hit one
  const agent = createAgent({ model: scriptedModel(Array.from({ length: 6 }, () => reply("ok"))), tools: memoryToolSet([]) });
  const inputs: string[] = [];
  const logger = memoryLogger();
  const spec = {
    kind: "subscription",
    id: "inbox",
    server: "inbox",
    uri: URI,
    instruction: "Triage: {{resource.text}}",
    concurrency: "queue",
  } as TriggerSpec;
  triggers = new AgentTriggers({
    agent: {
      connect: () => agent.connect(),
      run: (input, o) => (inputs.push(input), agent.run(input, o)),
      clients: new Map([["inbox", inbox]]),
    },
    specs: [spec],
    logger,
  });
  const ends: string[] = [];
  let wake: (() => void) | undefined;
  triggers.on("run-end", (e) => (ends.push(e.runId), wake?.()));
  const runEnds = async (n: number) => {
    while (ends.length < n) await new Promise<void>((r) => (wake = r));
  };
  await triggers.start();
  await runEnds(1);

  expect(await triggers.pause(["inbox"])).toEqual(["inbox"]);
  expect(await triggers.pause()).toEqual([]); // already paused
  expect(triggers.status()[0]?.state).toBe("paused");
  expect(inbox.listeners).toBe(0);
  inbox.set(URI, "state:one");
  inbox.set(URI, "state:two");
  expect(ends).toHaveLength(1);

  const reads = inbox.calls.filter((c) => c === "read").length;
  expect(await triggers.resume()).toEqual(["inbox"]);
  await runEnds(2);
  expect(inbox.calls.filter((c) => c === "read").length).toBe(reads + 1);
  expect(inputs.map((i) => (i.includes("state:two") ? "two" : i.includes("state:one") ? "one" : "zero"))).toEqual(["zero", "two"]);
  expect(triggers.status()[0]).toMatchObject({ state: "active", runs: 2 });
  expect(logger.records.filter((r) => r.event.startsWith("triggers.")).map((r) => [r.event, r.triggers])).toContainEqual([
    "triggers.paused",
    ["inbox"],
  ]);

  await expect(triggers.pause(["nope"])).rejects.toThrow("no trigger named 'nope': the triggers are inbox");
  await agent.close();
});
