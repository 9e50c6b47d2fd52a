/**
 * Profiling aid (not part of `bun bench/run.ts`): the stdio client's CPU, for `stdio-client-ab.ts`. Loads the
 * SDK of the tree at ROOT (so an old copy of the repository can be measured with the same worker), then:
 *
 *   bun bench/profile/stdio-cpu-worker.ts ROOT calls N     N sequential echo tools/calls to ROOT's agentd stdio server
 *   bun bench/profile/stdio-cpu-worker.ts ROOT servers N   N agentd stdio servers connected at once, one tools/list each
 *
 * Prints `{ clientCpuMs }` (this process's CPU, `process.cpuUsage()`, start-up included) as one JSON line.
 */
import { join } from "node:path";

const [root = "", kind = "calls", count = "1000"] = process.argv.slice(2);
const sdk = (await import(join(root, "packages/sdk/src/index.ts"))) as typeof import("@agentd/sdk");
const server = { command: process.execPath, args: [join(root, "bench/stdio/servers/agentd-echo-server.ts")] };
const n = Number(count);

async function connect(name: string) {
  const c = new sdk.McpClient({ name: "cpu-worker", version: "1.0.0" });
  await c.connect(new sdk.StdioChildTransport({ name, ...server }));
  return c;
}

if (kind === "calls") {
  const c = await connect("echo");
  for (let i = 0; i < n; i++) {
    const r = (await c.callTool("echo", { text: "hello" })) as { content?: Array<{ text?: string }> };
    if (r.content?.[0]?.text !== "hello") throw new Error(`echo answered ${JSON.stringify(r)}`);
  }
  await c.close();
} else if (kind === "servers") {
  const clients = await Promise.all(Array.from({ length: n }, (_, i) => connect(`s${i}`)));
  await Promise.all(clients.map(async (c) => {
    if ((await c.listTools()).length !== 1) throw new Error("expected one tool");
  }));
  await Promise.all(clients.map((c) => c.close()));
} else throw new Error(`unknown kind ${kind}: calls or servers`);
const u = process.cpuUsage();
process.stdout.write(`${JSON.stringify({ clientCpuMs: (u.user + u.system) / 1000 })}\n`);
