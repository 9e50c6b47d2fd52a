import { afterEach, describe, expect, test } from "bun:test";
import { AgentdError } from "../wire/errors.ts";
import { FakeResourceClient, instantRuns, record } from "./__fixtures__/trigger-harness.ts";
import { FakeClock } from "./fake-clock.ts";
import { TriggerRouter } from "./router.ts";
import { contentHash, subscriptionRunId } from "./run-id.ts";
import { concernsResource, SubscriptionSource } from "./subscription-source.ts";
import type { Concurrency } from "./types.ts";

/** A trigger instruction with its resource-text fences removed (the fence itself is tested in loop/fence.test.ts). */
const UNFENCE = /<resource-text-([a-z2-7]{20}) uri="[^"]*" untrusted="true">\n([\s\S]*?)\n<\/resource-text-\1>/g;

const URI = "file:///data/inbox.md";
const T0 = "2026-05-01T10:00:00.000Z";
const routers: TriggerRouter[] = [];
afterEach(async () => {
  await Promise.all(routers.splice(0).map((r) => r.stop({ graceMs: 0 })));
});

function setup(opts: { coalesceMs?: number; concurrency?: Concurrency; client?: FakeResourceClient; pollIntervalMs?: number } = {}) {
  const client = opts.client ?? new FakeResourceClient();
  const clock = new FakeClock(T0);
  const runs = instantRuns();
  const router = new TriggerRouter({ run: runs.run, clock });
  routers.push(router);
  const source = new SubscriptionSource({ client, uri: URI, server: "fs", pollIntervalMs: opts.pollIntervalMs });
  router.add({
    id: "inbox",
    instruction: "Triage {{resource.uri}}: {{resource.text}}",
    concurrency: opts.concurrency ?? "skip",
    coalesceMs: opts.coalesceMs,
    source,
  });
  const rec = record(router);
  const texts = () => rec.records["run-end"].map((r) => r.event.data.text);
  return { client, clock, runs, router, source, ...rec, texts };
}

describe("SubscriptionSource", () => {
  test("subscribes, then reads at once and emits the initial state (level-triggered)", async () => {
    const client = new FakeResourceClient();
    client.texts.set(URI, "hello");
    const s = setup({ client });
    await s.router.start();
    await s.waitFor("run-end");
    expect(client.calls.slice(0, 2)).toEqual(["subscribe", "read"]);
    expect(s.runs.seen[0]?.instruction?.replace(UNFENCE, "$2")).toBe(`Triage ${URI}: hello`);
    const event = s.runs.seen[0]?.event;
    expect(event?.kind).toBe("subscription");
    expect(event?.key).toBe(URI);
    expect(event?.runId).toBe(subscriptionRunId("inbox", URI, event?.data.version as string));
    expect(event?.runId).toMatch(/^sub-[0-9a-f]{16}$/);
  });

  test("a resource that changes 3 times gives 3 runs with 3 distinct run ids", async () => {
    const s = setup();
    s.client.texts.set(URI, "v0");
    await s.router.start();
    await s.waitFor("run-end", 1);
    for (const [i, text] of ["v1", "v2", "v3"].entries()) {
      s.client.set(URI, text);
      await s.waitFor("run-end", i + 2);
    }
    expect(s.texts()).toEqual(["v0", "v1", "v2", "v3"]);
    const ids = s.records["run-end"].map((r) => r.runId);
    expect(new Set(ids.slice(1)).size).toBe(3);
    expect(new Set(ids).size).toBe(4);
  });

  test("a burst of 10 changes inside the coalescing window gives one run that sees the last state", async () => {
    const s = setup({ coalesceMs: 1000 });
    s.client.texts.set(URI, "v0");
    await s.router.start();
    await s.waitFor("fire", 1);
    s.clock.advance(1000);
    await s.waitFor("run-end", 1);
    for (let i = 1; i <= 10; i++) {
      s.client.set(URI, `v${i}`);
      await s.waitFor("fire", 1, (f) => f.event.data.text === `v${i}`);
      s.clock.advance(100); // each change lands inside the previous one's window
    }
    s.clock.advance(899);
    expect(s.records["run-start"].length).toBe(1); // still debouncing
    s.clock.advance(1);
    await s.waitFor("run-end", 2);
    expect(s.texts()).toEqual(["v0", "v10"]);
    expect(s.records.drop.filter((d) => d.reason === "coalesced").length).toBe(9);
    expect(s.router.snapshot()).toMatchObject({ inFlight: 0, waiting: 0, debouncing: 0 });
    expect(s.clock.pending).toBe(0);
  });

  test("a constant stream still runs: the debounce waits at most 4 × coalesce", async () => {
    const s = setup({ coalesceMs: 1000 });
    s.client.texts.set(URI, "s0");
    await s.router.start();
    await s.waitFor("fire", 1);
    const start = s.clock.now();
    const startedAt: number[] = [];
    s.router.on("run-start", () => startedAt.push(s.clock.now() - start));
    for (let i = 1; i <= 12; i++) {
      s.clock.advance(500); // a change every 500 ms, never a 1000 ms pause
      s.client.set(URI, `s${i}`);
      await s.waitFor("fire", 1, (f) => f.event.data.text === `s${i}`);
    }
    // Window 1 opens with s0 at +0 and is forced at +4000 (max wait), holding s7 (s8 comes at +4000,
    // after the timer). Window 2 opens with s8 at +4000; the stream ends with s12 at +6000, so its
    // trailing edge is +7000.
    s.clock.advance(1000);
    await s.waitFor("run-end", 2);
    expect(s.texts()).toEqual(["s7", "s12"]);
    expect(startedAt).toEqual([4000, 7000]);
  });

  test("the same state re-delivered does not run again; a restarted source gives the same run id", async () => {
    const s = setup();
    s.client.texts.set(URI, "same");
    await s.router.start();
    await s.waitFor("run-end", 1);
    const first = s.records["run-end"][0]?.runId;
    s.client.notify(URI); // re-delivered notification, no change
    s.client.notify(URI);
    s.client.set(URI, "next"); // a real change, after the re-deliveries: reads are serialized and ordered
    await s.waitFor("run-end", 2);
    expect(s.texts()).toEqual(["same", "next"]);
    expect(s.client.reads).toBeGreaterThanOrEqual(3);

    // "Restart": a new router and source over the same server state emits the first state again, with
    // the run id a run would already have recorded, so the run can answer "already done".
    s.client.set(URI, "same");
    await s.waitFor("run-end", 3);
    const again = setup({ client: s.client });
    await again.router.start();
    await again.waitFor("run-end", 1);
    expect(again.records["run-end"][0]?.runId).toBe(first);
  });

  test("reconnect: re-subscribe and re-read; a change while down runs once, no change runs nothing", async () => {
    const s = setup();
    s.client.texts.set(URI, "before");
    await s.router.start();
    await s.waitFor("run-end", 1);
    s.client.up = false;
    s.client.set(URI, "changed while down"); // the notification is lost
    s.client.reconnect();
    await s.waitFor("run-end", 2);
    expect(s.client.subscribeCalls).toBe(2);
    expect(s.texts()).toEqual(["before", "changed while down"]);

    s.client.up = false;
    const reads = s.client.reads;
    s.client.reconnect(); // nothing changed while down
    await s.client.waitForCalls("read", reads + 1); // the re-read is under way, of the unchanged state
    s.client.set(URI, "after"); // read after it (reads are serialized): it must be the only new run
    await s.waitFor("run-end", 3);
    expect(s.client.subscribeCalls).toBe(3);
    expect(s.texts()).toEqual(["before", "changed while down", "after"]);
  });

  test("updates for a sub-resource re-read the subscribed resource; unrelated URIs are ignored", async () => {
    expect(concernsResource("file:///data", "file:///data/a.md")).toBe(true);
    expect(concernsResource("file:///data/", "file:///data/a.md")).toBe(true);
    expect(concernsResource("file:///data", "file:///database")).toBe(false);
    expect(concernsResource("db://t?x=1", "db://t?x=1")).toBe(true);
    const s = setup();
    s.client.texts.set(URI, "a");
    await s.router.start();
    await s.waitFor("run-end", 1);
    const reads = s.client.reads;
    s.client.notify("file:///data/other.md");
    s.client.texts.set(URI, "b");
    s.client.notify(`${URI}#section`);
    await s.waitFor("run-end", 2);
    expect(s.client.reads).toBe(reads + 1);
  });

  test("a server without subscriptions is refused with one clear line unless pollInterval is set", async () => {
    const client = new FakeResourceClient(false);
    const s = setup({ client });
    const error = await s.router.start().catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_CAPABILITY");
    expect((error as Error).message).toBe(
      "trigger 'inbox': server 'fs' does not support resource subscriptions; set pollInterval to poll instead",
    );
    expect(client.subscribeCalls).toBe(0);
  });

  test("polling: reads every pollInterval and runs only when the content changed", async () => {
    const client = new FakeResourceClient(false);
    client.texts.set(URI, "p0");
    const s = setup({ client, pollIntervalMs: 5000 });
    await s.router.start();
    await s.waitFor("run-end", 1);
    await s.clock.whenPending();
    client.texts.set(URI, "p1"); // no notification: only a poll can see it
    s.clock.advance(5000);
    await s.waitFor("run-end", 2);
    await s.clock.whenPending();
    const reads = client.reads;
    s.clock.advance(5000); // unchanged
    await s.clock.whenPending();
    expect(client.reads).toBe(reads + 1);
    client.texts.set(URI, "p2");
    s.clock.advance(5000);
    await s.waitFor("run-end", 3);
    expect(s.texts()).toEqual(["p0", "p1", "p2"]);
    expect(client.subscribeCalls).toBe(0);
  });

  test("stop unsubscribes and stops listening", async () => {
    const s = setup();
    s.client.texts.set(URI, "x");
    await s.router.start();
    await s.waitFor("run-end", 1);
    await s.router.stop({ graceMs: 0 });
    expect(s.client.unsubscribeCalls).toBe(1);
    expect(s.client.listeners).toBe(0);
  });

  test("the version is the content hash of all content items", async () => {
    const s = setup();
    s.client.texts.set(URI, "abc");
    await s.router.start();
    await s.waitFor("run-end", 1);
    const version = s.runs.seen[0]?.event.data.version;
    expect(version).toBe(contentHash(JSON.stringify([[URI, "text/plain", "abc", null]])));
  });
});
