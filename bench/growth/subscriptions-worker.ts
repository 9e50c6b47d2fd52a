/**
 * The growth benchmark's subscription work (`agent-worker.ts subs GATEWAY_URL N B`): one agent subscribed to
 * N resources of one testkit fake stdio server, one trigger each; RSS once every first read's run has
 * ended, then a burst of B changes made at once by another process (burst-client.ts), then single changes
 * made alone. Each latency runs from the `notifications/resources/updated` reaching the agent's MCP client
 * to its run's `run-start`: the re-read (level-triggered: a run acts on the state it read) and the router.
 *
 * Printed beside p50/p99 of the burst: the change's request → run-start (clocks of two processes), the
 * agent's CPU per change over the burst, the drain rate (B over first notification → last run-start), and
 * the floor: one change alone, event → run-start (median of {@link SINGLES}).
 */
import { createAgent } from "@agentd/sdk";
import { AgentTriggers, subscriptionTriggerId, type SubscriptionSpec } from "@agentd/sdk/agent";
import type { LanguageModel } from "@agentd/sdk/model";
import { fakeServerCommand } from "@agentd/testkit";

const BURST_CLIENT = new URL("./burst-client.ts", import.meta.url).pathname;
/** Single changes measured one at a time after the burst. */
const SINGLES = 5;
const uri = (i: number) => `file:///bench/r${i}.txt`;
const pct = (xs: number[], p: number) => xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? 0;

/** Run the subscription work; prints one JSON line of figures. */
export async function subscriptions(
  model: LanguageModel,
  n: number,
  burst: number,
  rssKb: () => number,
  print: (o: unknown) => void,
): Promise<void> {
  const fake = fakeServerCommand({ resources: Array.from({ length: n }, (_, i) => ({ uri: uri(i), text: "v0" })) });
  const agent = createAgent({ model, mcpServers: { fake: fake.config }, instructions: "Note the change.", limits: { maxTurns: 2 } });
  try {
    await agent.connect();
    const baseKb = rssKb();
    const specs: SubscriptionSpec[] = Array.from({ length: n }, (_, i) => ({
      kind: "subscription",
      id: subscriptionTriggerId("fake", uri(i)),
      server: "fake",
      uri: uri(i),
      instruction: "The resource changed.",
    }));
    const triggers = new AgentTriggers({ agent, specs });
    // Listening before the triggers do, so this listener hears each notification first.
    const notified = new Map<string, number>();
    let measuring = false;
    agent.clients.get("fake")?.onResourceUpdated((u) => {
      if (measuring && !notified.has(u)) notified.set(u, performance.now());
    });
    const started = new Map<string, number>();
    let ended = 0;
    let waiter: { count: number; resolve: () => void } | undefined;
    triggers.on("run-start", (e) => {
      if (!started.has(e.triggerId)) started.set(e.triggerId, performance.now());
    });
    triggers.on("run-end", () => {
      ended++;
      if (waiter && ended >= waiter.count) waiter.resolve();
    });
    const endedReaches = (count: number) =>
      ended >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { count, resolve }));
    const t0 = performance.now();
    const r = await triggers.start();
    const startMs = performance.now() - t0;
    if (r.active !== n)
      throw new Error(`${r.active} of ${n} subscriptions active: ${JSON.stringify(triggers.status().find((s) => s.state !== "active"))}`);
    // The first read after subscribing always emits (level-triggered): one run per resource. Let them end.
    await endedReaches(n);
    const subscribedKb = rssKb();

    /** Change r0 … r{count-1} to `content` from another process; latencies (ms) of each change. */
    const change = async (count: number, content: string) => {
      notified.clear();
      started.clear();
      const burster = Bun.spawn([process.execPath, BURST_CLIENT, fake.control.socketPath, String(count), content], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "inherit",
      });
      const out = burster.stdout.getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (!text.includes("\n")) {
        const { value, done } = await out.read();
        if (done) throw new Error("the burst client ended before it was ready");
        text += decoder.decode(value, { stream: true });
      }
      measuring = true;
      const target = ended + count;
      const cpu0 = process.cpuUsage();
      const windowFrom = performance.timeOrigin + performance.now();
      burster.stdin.write("go\n");
      burster.stdin.flush();
      await endedReaches(target);
      const cpu = process.cpuUsage(cpu0);
      const window = [windowFrom, performance.timeOrigin + performance.now()];
      measuring = false;
      for (;;) {
        const { value, done } = await out.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await burster.exited;
      const { sentAt } = JSON.parse(text.split("\n")[1] ?? "{}") as { sentAt: number[] };
      const ids = Array.from({ length: count }, (_, i) => subscriptionTriggerId("fake", uri(i)));
      const fromNotification = ids.map((id, i) => (started.get(id) ?? Number.NaN) - (notified.get(uri(i)) ?? Number.NaN));
      if (fromNotification.some((l) => !Number.isFinite(l)))
        throw new Error(`${fromNotification.filter((l) => !Number.isFinite(l)).length} of ${count} changes started no run`);
      const fromChange = ids.map((id, i) => performance.timeOrigin + (started.get(id) as number) - (sentAt[i] as number));
      const drainMs = Math.max(...started.values()) - Math.min(...notified.values());
      return { fromNotification, fromChange, cpuMs: (cpu.user + cpu.system) / 1000, drainMs, window };
    };

    // The burst: B resources changed at once by another process (see burst-client.ts).
    const b = await change(burst, "v1");
    // The floor: one change alone, several times (each after the previous one's run ended).
    const singles: number[] = [];
    for (let i = 0; i < SINGLES; i++) singles.push(...(await change(1, `single ${i}`)).fromNotification);
    print({
      baseKb,
      subscribedKb,
      startMs,
      p50: pct(b.fromNotification, 0.5),
      p99: pct(b.fromNotification, 0.99),
      changeP50: pct(b.fromChange, 0.5),
      changeP99: pct(b.fromChange, 0.99),
      cpuMsPerChange: b.cpuMs / burst,
      drainPerSecond: burst / (b.drainMs / 1000),
      singleMs: pct(singles, 0.5),
      ...(process.env.BENCH_BURST_WINDOW ? { window: b.window } : {}),
    });
    await triggers.stop({ graceMs: 1000 });
  } finally {
    await agent.close();
    fake.dispose();
  }
}
