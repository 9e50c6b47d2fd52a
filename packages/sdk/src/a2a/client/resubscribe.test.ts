/**
 * A remote task's stream that really drops (the peer closes the socket mid-task): the a2a:NAME tool
 * re-attaches with SubscribeToTask and sees the task end there; when the peer refuses the subscription,
 * GetTask takes over and polls until the task ends. Against the `@a2a-js/sdk` peer on 127.0.0.1.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { startPeer, type Peer } from "@agentd/test-support/a2a-peer";
import { createLogger, type LogRecord } from "../../log.ts";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ToolResultPart } from "../../model/language-model.ts";
import { createAgent, type Agent } from "../../agent/create-agent.ts";

setDefaultTimeout(30_000);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A logger whose records can be awaited. */
function watchedLogger() {
  const records: LogRecord[] = [];
  const waiters: { match: (r: LogRecord) => boolean; resolve: (r: LogRecord) => void }[] = [];
  const logger = createLogger((r) => {
    records.push(r);
    for (const w of waiters.filter((w) => w.match(r))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(r);
    }
  });
  const next = (event: string, match: (r: LogRecord) => boolean = () => true) =>
    new Promise<LogRecord>((resolve) => {
      const seen = records.find((r) => r.event === event && match(r));
      if (seen) resolve(seen);
      else waiters.push({ match: (r) => r.event === event && match(r), resolve });
    });
  return { logger, records, next };
}

async function delegate(peer: Peer, log: ReturnType<typeof watchedLogger>) {
  let seen: ToolResultPart | undefined;
  const model = scriptedModel([
    callTools([["a2a_peer", { message: "hang" }]]),
    (request) => {
      seen = request.messages.flatMap((m) => (m.role === "tool" ? m.content : [])).at(-1);
      return reply("done");
    },
  ]);
  const agent: Agent = createAgent({ model, a2aAgents: { peer: { url: peer.url, binding: "HTTP+JSON" } }, logger: log.logger });
  cleanups.push(() => agent.close());
  const run = agent.run("delegate", { runId: "run-resub" });
  return { run, seen: () => seen };
}

test("a dropped stream is re-attached with SubscribeToTask and the task's end arrives there", async () => {
  const peer = await startPeer();
  cleanups.push(() => peer.close());
  const log = watchedLogger();
  const { run, seen } = await delegate(peer, log);
  const id = await peer.hanging;
  await log.next("a2a.status", (r) => r.taskId === id && r.state === "working");
  peer.drop();
  expect((await log.next("a2a.stream_dropped")).taskId).toBe(id);
  expect(await peer.subscribed).toBe(id);
  peer.finish(id);
  const result = await run;
  expect(result.text).toBe("done");
  expect(seen()?.isError).toBeFalsy();
  expect(seen()?.output).toContain("finished");
  expect(log.records.filter((r) => r.event === "a2a.resubscribe")).toHaveLength(1);
  expect(log.records.some((r) => r.event === "a2a.resubscribe_failed")).toBe(false);
  expect(
    log.records
      .filter((r) => r.event === "a2a.status")
      .map((r) => r.state)
      .at(-1),
  ).toBe("completed");
});

test("when the peer refuses the subscription, GetTask follows the task to its end", async () => {
  const peer = await startPeer({ noSubscribe: true });
  cleanups.push(() => peer.close());
  const log = watchedLogger();
  const { run, seen } = await delegate(peer, log);
  const id = await peer.hanging;
  await log.next("a2a.status", (r) => r.taskId === id && r.state === "working");
  peer.drop();
  expect((await log.next("a2a.resubscribe_failed")).error).toContain("501");
  peer.finish(id);
  const result = await run;
  expect(result.text).toBe("done");
  expect(seen()?.output).toContain("finished");
});
