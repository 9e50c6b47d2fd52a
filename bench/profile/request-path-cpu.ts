/**
 * Profiling aid (not part of `bun bench/run.ts`): CPU per sequential `tools/call` through agentd's
 * `McpClient` and `McpServer` in one process, over a transport pair that hands each message across on a
 * microtask without copying or framing. No syscalls and no codec framing: what is left is the request path
 * itself (protocol, pending and inbound requests, the client and server wrappers, validation), so a change
 * there of a microsecond shows, where the stdio round trip (~190 µs of CPU for both processes) hides it.
 *
 *   bun bench/profile/request-path-cpu.ts [CALLS=20000]      (WARM=5000 warm-up calls first)
 */
import { McpClient, McpServer } from "@agentd/sdk/mcp";
import { directPair } from "./direct-pair.ts";
import { ECHO_TOOL, echo } from "../lib/echo-tool.ts";

const [a, b] = directPair();
const server = new McpServer({ name: "profile-echo", version: "1.0.0" });
server.tool(ECHO_TOOL, echo);
const served = server.connect(b as never);
const client = new McpClient({ name: "profile-client", version: "1.0.0" });
await Promise.all([client.connect(a as never), served]);
const calls = Number(process.argv[2] ?? 20_000);
const ARGS = { text: "hello" };
for (let i = 0; i < Number(process.env.WARM ?? 5_000); i++) await client.callTool("echo", ARGS);
const before = process.cpuUsage();
for (let i = 0; i < calls; i++) {
  const r = await client.callTool("echo", ARGS);
  if ((r.content as Array<{ text?: string }>)[0]?.text !== "hello") throw new Error("echo answered wrong");
}
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuUsPerCall: (used.user + used.system) / calls }));
process.exit(0);
