/**
 * A Streamable HTTP server (JSON response mode, or SSE with `CENSUS_RESPONSE_MODE=sse`) whose sessions
 * answer `tools/call` with a synchronous echo written straight on the transport (no MCP layer), for
 * `request-allocs.test.ts` and `sse-allocs.test.ts`: what the transport itself allocates per request.
 * Started with the collector held off (the test's environment), it prints `{"port":N}`, then answers
 * commands on stdin, one a line: `mark` collects garbage and notes the heap's object counts by type
 * (`bun:jsc` `heapStats()`); `count` prints how much each grew since, as one JSON line.
 */
import { heapStats } from "bun:jsc";
import { createStreamableHttpServer } from "../index.ts";

const server = await createStreamableHttpServer({
  hostname: "127.0.0.1",
  port: 0,
  responseMode: process.env.CENSUS_RESPONSE_MODE === "sse" ? "sse" : "json",
  onsession(t) {
    t.onmessage = (message) => {
      const m = message as { id?: number; method?: string; params?: { protocolVersion?: string; arguments?: { text?: string } } };
      if (m.id === undefined) return;
      if (m.method === "initialize") {
        const result = {
          protocolVersion: m.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "echo", version: "1" },
        };
        void t.send({ jsonrpc: "2.0", id: m.id, result });
        return;
      }
      void t.send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: m.params?.arguments?.text }] } });
    };
    void t.start();
  },
});

let before: Record<string, number> = {};
const write = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
write({ port: server.port });
let pending = "";
for await (const chunk of Bun.stdin.stream()) {
  pending += new TextDecoder().decode(chunk);
  for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
    const command = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    if (command === "mark") {
      Bun.gc(true);
      before = heapStats().objectTypeCounts;
      write({ marked: true });
    } else if (command === "count") {
      const after = heapStats().objectTypeCounts;
      const grown: Record<string, number> = {};
      for (const [type, n] of Object.entries(after)) if (n !== (before[type] ?? 0)) grown[type] = n - (before[type] ?? 0);
      write(grown);
    }
  }
}
await server.close();
