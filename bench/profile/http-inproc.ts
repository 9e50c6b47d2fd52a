/**
 * Profiling aid (not part of `bun bench/run.ts`): agentd's HTTP server and a raw keep-alive client in one
 * process, `N` echo tools/call over 8 sessions (8 connections), for the marginal-cost method: CPU time at two
 * counts of the same checkout, the difference divided by the extra calls (start-up cancels out; the
 * client's share is the same on both sides of an A/B). `DIR` is a checkout of this repository, loaded from
 * there so an old and a new side run the same script.
 *
 *   bun bench/profile/http-inproc.ts DIR N [sse|json]
 *   # per side, interleaved: perf stat -x, -e task-clock bun bench/profile/http-inproc.ts DIR 1000 sse
 *   #                        perf stat -x, -e task-clock bun bench/profile/http-inproc.ts DIR 5000 sse
 */
import type * as Mcp from "@agentd/sdk/mcp";
import type * as Transport from "@agentd/sdk/transport";
import type * as Raw from "../http/raw-http.ts";
import type * as Session from "../http/mcp-session.ts";
import { ECHO_TOOL, echo } from "../lib/echo-tool.ts";

const [dir = ".", count = "2000", mode = "sse"] = process.argv.slice(2);
const n = Number(count);
const { McpServer } = (await import(`${dir}/packages/sdk/src/mcp/index.ts`)) as typeof Mcp;
const { createStreamableHttpServer } = (await import(`${dir}/packages/sdk/src/transport/index.ts`)) as typeof Transport;
const { RawConnection } = (await import(`${dir}/bench/http/raw-http.ts`)) as typeof Raw;
const { openSession, POST_HEADERS, sessionHeaders, toolsCall, isEchoAnswer } = (await import(
  `${dir}/bench/http/mcp-session.ts`
)) as typeof Session;

const mcp = new McpServer({ name: "bench-echo", version: "1.0.0" });
mcp.tool(ECHO_TOOL, echo);
const server = await createStreamableHttpServer({
  responseMode: mode === "json" ? "json" : "sse",
  onsession(transport) {
    void mcp.connect(transport);
  },
});
const conns = await Promise.all(Array.from({ length: 8 }, () => RawConnection.open(server.port)));
const sids: string[] = [];
for (const c of conns) sids.push(await openSession(c));
let id = 1;
await Promise.all(
  conns.map(async (c, k) => {
    for (let i = 0; i < n / 8; i++) {
      const r = await c.request("POST", "/mcp", { ...POST_HEADERS, ...sessionHeaders(sids[k]!) }, toolsCall(id++));
      if (!isEchoAnswer(r)) throw new Error(`unexpected answer ${r.status}`);
    }
  }),
);
for (const c of conns) c.close();
await server.close();
