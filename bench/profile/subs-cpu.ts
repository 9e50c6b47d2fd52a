/**
 * Profiling aid (not part of `bun bench/run.ts`): the agent's CPU per change from a notification to its
 * run's start — N subscription triggers (`AgentTriggers`) on one testkit fake stdio server, bursts of B
 * changes made by another process (bench/growth/burst-client.ts), and a run that resolves at once (no
 * model): the MCP client's notification and read round trip plus agentd's trigger code, nothing after.
 *
 *   bun bench/profile/subs-cpu.ts [N] [B] [ROUNDS]
 */
import { createModel } from "@agentd/adapters";
import { createAgent, type RunResult } from "@agentd/sdk";
import { AgentTriggers, subscriptionTriggerId, type SubscriptionSpec } from "@agentd/sdk/agent";
import { fakeServerCommand } from "@agentd/testkit";

const BURST_CLIENT = new URL("../growth/burst-client.ts", import.meta.url).pathname;
const n = Number(process.argv[2] ?? 1000);
const burst = Number(process.argv[3] ?? 100);
const rounds = Number(process.argv[4] ?? 20);
const uri = (i: number) => `file:///bench/r${i}.txt`;
const fake = fakeServerCommand({ resources: Array.from({ length: n }, (_, i) => ({ uri: uri(i), text: "v0" })) });
// The model is never called: the runs below answer at once.
const model = createModel({ dialect: "openai", baseURL: "http://127.0.0.1:9/v1", model: "unused", apiKey: "unused", maxRetries: 0 });
const agent = createAgent({ model, mcpServers: { fake: fake.config } });
try {
  await agent.connect();
  const answered: RunResult = { text: "ok", toolCalls: 0, turns: 1 } as RunResult;
  const noModel: ConstructorParameters<typeof AgentTriggers>[0]["agent"] = {
    connect: () => agent.connect(),
    clients: agent.clients,
    run: async () => answered,
  };
  const specs: SubscriptionSpec[] = Array.from({ length: n }, (_, i) => ({
    kind: "subscription",
    id: subscriptionTriggerId("fake", uri(i)),
    server: "fake",
    uri: uri(i),
    instruction: "The resource changed.",
  }));
  const triggers = new AgentTriggers({ agent: noModel, specs });
  let ended = 0;
  let waiter: { count: number; resolve: () => void } | undefined;
  triggers.on("run-end", () => {
    ended++;
    if (waiter && ended >= waiter.count) waiter.resolve();
  });
  const endedReaches = (count: number) =>
    ended >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiter = { count, resolve }));
  await triggers.start();
  await endedReaches(n);
  const perChange: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const burster = Bun.spawn([process.execPath, BURST_CLIENT, fake.control.socketPath, String(burst), `v${round}`], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "inherit",
    });
    await burster.stdout.getReader().read(); // "ready"
    const target = ended + burst;
    const cpu0 = process.cpuUsage();
    burster.stdin.write("go\n");
    burster.stdin.flush();
    await endedReaches(target);
    const cpu = process.cpuUsage(cpu0);
    perChange.push((cpu.user + cpu.system) / burst);
    await burster.exited;
  }
  await triggers.stop({ graceMs: 100 });
  perChange.sort((a, b) => a - b);
  console.log(JSON.stringify({ n, burst, rounds, cpuUsPerChange: perChange[perChange.length >> 1] }));
} finally {
  await agent.close();
  fake.dispose();
}
