/**
 * Profiling aid (not part of `bun bench/run.ts`): the CPU per change of the triggers layer alone — N
 * subscription sources on one in-process fake client whose reads answer at once, one router, a run that
 * resolves at once — for bursts of B notifications. No MCP, no model: what reading (hash, event), routing
 * and starting a run cost in agentd's own trigger code. Run it under `bun --cpu-prof` for shares.
 *
 *   bun bench/profile/triggers-cpu.ts [N] [B] [ROUNDS]        TPL="…" sets the instruction template;
 *                                                            LOG=1 logs at info as JSON lines (dropped)
 */
import { jsonLinesLogger } from "../../packages/sdk/src/log.ts";
import { SubscriptionSource, TriggerRouter, type SubscribableClient } from "../../packages/sdk/src/triggers/index.ts";

const N = Number(process.argv[2] ?? 1000);
const B = Number(process.argv[3] ?? 100);
const ROUNDS = Number(process.argv[4] ?? 30);
const listeners = new Set<(uri: string) => void>();
let version = 0;
const client: SubscribableClient = {
  subscribe: async () => {},
  unsubscribe: async () => {},
  readResource: async (uri) => ({ contents: [{ uri, text: `v${version}` }] }),
  onResourceUpdated: (l) => (listeners.add(l), () => listeners.delete(l)),
  supportsSubscribe: () => true,
};
let ended = 0;
let wake: (() => void) | undefined;
const router = new TriggerRouter({
  run: async () => ({ status: "ok" }),
  ...(process.env.LOG ? { logger: jsonLinesLogger(() => {}) } : {}),
});
router.on("run-end", () => {
  ended++;
  wake?.();
});
for (let i = 0; i < N; i++)
  router.add({
    id: `t${i}`,
    instruction: process.env.TPL ?? "The resource changed.",
    source: new SubscriptionSource({ client, uri: `file:///r${i}.txt` }),
  });
await router.start();
const until = (count: number) =>
  new Promise<void>((resolve) => {
    const check = () => (ended >= count ? resolve() : (wake = check));
    check();
  });
await until(N);
const perChange: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  version = round;
  const target = ended + B;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < B; i++) for (const l of listeners) l(`file:///r${i}.txt`);
  await until(target);
  const cpu = process.cpuUsage(cpu0);
  perChange.push((cpu.user + cpu.system) / B);
}
await router.stop({ graceMs: 0 });
perChange.sort((a, b) => a - b);
console.log(JSON.stringify({ n: N, burst: B, rounds: ROUNDS, cpuUsPerChange: perChange[perChange.length >> 1] }));
