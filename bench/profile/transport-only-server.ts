/**
 * Profiling aid (not part of `bun bench/run.ts`): agentd's Streamable HTTP server with a hand-written echo
 * responder on each session's transport instead of an `McpServer` — what the transport alone costs per
 * request, so a profile can split a request's CPU between the HTTP transport and the MCP layer above it.
 * Same arguments and output as `bench/http/servers/agentd-http-server.ts`:
 *
 *   RPS_CPU_SERVER=bench/profile/transport-only-server.ts bun bench/profile/rps-cpu.ts
 */
import { createStreamableHttpServer } from "@agentd/sdk/transport";
import { serveControl } from "../lib/server-control.ts";

const mode = process.argv[2] === "json" ? "json" : "sse";
const server = await createStreamableHttpServer({
  responseMode: mode,
  limits: { maxSessions: Number(process.argv[3] ?? 1024) },
  onsession(t) {
    t.onmessage = (message) => {
      const m = message as { id?: number; method?: string; params?: { protocolVersion?: string; arguments?: { text?: string } } };
      if (m.id === undefined) return;
      const id = m.id;
      if (m.method === "initialize") {
        const result = {
          protocolVersion: m.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "echo", version: "1" },
        };
        void t.send({ jsonrpc: "2.0", id, result });
        return;
      }
      // Answered a microtask later, as a handler behind an await would be.
      const result = { content: [{ type: "text", text: m.params?.arguments?.text }] };
      queueMicrotask(() => void t.send({ jsonrpc: "2.0", id, result }));
    };
    void t.start();
  },
});
serveControl({ port: server.port }, () => server.close());
