/**
 * Profiling aid (not part of `bun bench/run.ts`): the stdio client's CPU, for `stdio-client-ab.ts`. Loads the
 * SDK of the tree at ROOT (so an old copy of the repository can be measured with the same worker), then:
 *
 *   bun bench/profile/stdio-cpu-worker.ts ROOT calls N     N sequential echo tools/calls to ROOT's agentd stdio server
 *   bun bench/profile/stdio-cpu-worker.ts ROOT servers N   N stdio servers (the growth benchmark's, `bench/loop/timed-mcp-server.ts`)
 *                                                          connected at once, one tools/list each
 *
 * Prints `{ clientCpuMs, loopCpuMs }` as one JSON line: this process's CPU (`process.cpuUsage()`), start-up
 * included, and (calls) its CPU over the call loop alone.
 */
import { join } from "node:path";

const [root = "", kind = "calls", count = "1000"] = process.argv.slice(2);
const mcp = (await import(join(root, "packages/sdk/src/mcp/index.ts"))) as typeof import("@agentd/sdk/mcp");
const transport = (await import(join(root, "packages/sdk/src/transport/index.ts"))) as typeof import("@agentd/sdk/transport");
const server = (file: string) => ({ command: process.execPath, args: [join(root, file)] });
const n = Number(count);

async function connect(name: string, file = "bench/stdio/servers/agentd-echo-server.ts") {
  const c = new mcp.McpClient({ name: "cpu-worker", version: "1.0.0" });
  await c.connect(new transport.StdioChildTransport({ name, ...server(file) }));
  return c;
}

let loop: { user: number; system: number } | undefined;
if (kind === "calls") {
  const c = await connect("echo");
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const r = (await c.callTool("echo", { text: "hello" })) as { content?: Array<{ text?: string }> };
    if (r.content?.[0]?.text !== "hello") throw new Error(`echo answered ${JSON.stringify(r)}`);
  }
  loop = process.cpuUsage(before);
  await c.close();
} else if (kind === "servers") {
  const clients = await Promise.all(Array.from({ length: n }, (_, i) => connect(`s${i}`, "bench/loop/timed-mcp-server.ts")));
  await Promise.all(
    clients.map(async (c) => {
      if ((await c.listTools()).length !== 1) throw new Error("expected one tool");
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
} else throw new Error(`unknown kind ${kind}: calls or servers`);
const u = process.cpuUsage();
const ms = (c: { user: number; system: number }) => (c.user + c.system) / 1000;
process.stdout.write(`${JSON.stringify({ clientCpuMs: ms(u), ...(loop ? { loopCpuMs: ms(loop) } : {}) })}\n`);
