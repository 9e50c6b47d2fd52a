/**
 * Profiling aid (not part of `bun bench/run.ts`): CPU per sequential request through one `Protocol` peer,
 * client side only (request → pending request and its deadline → response → result check → resolve), over
 * a transport pair whose far end answers each `ping` a microtask later without copying.
 *
 *   bun bench/profile/pending-cpu.ts [CALLS=200000]
 */
import { Protocol } from "../../packages/sdk/src/mcp/protocol/protocol.ts";
import { directPair } from "./direct-pair.ts";

const [a, b] = directPair();
b.onmessage = (m) => {
  const msg = m as { id?: number; method?: string };
  if (msg.method === "ping") void b.send({ jsonrpc: "2.0", id: msg.id, result: {} });
};
const protocol = new Protocol(a as never);
await protocol.start();
const calls = Number(process.argv[2] ?? 200_000);
// A `meta` per request, as every tools/call carries the run id.
for (let i = 0; i < 20_000; i++) await protocol.request("ping", undefined, { meta: { run: "r" } });
const before = process.cpuUsage();
for (let i = 0; i < calls; i++) await protocol.request("ping", undefined, { meta: { run: "r" } });
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuNsPerRequest: ((used.user + used.system) * 1000) / calls }));
process.exit(0);
