/**
 * agentd's Streamable HTTP server (one shared `McpServer` with an `echo` tool) on 127.0.0.1, for the HTTP
 * benchmark. `bun agentd-http-server.ts json|sse [maxSessions]`; prints `{"port":N}`. With BENCH_TLS_CERT and
 * BENCH_TLS_KEY (PEM paths) it serves HTTPS; with BENCH_TLS_CA as well, mutual TLS (clients must present a
 * certificate the CA signed).
 */
// Only the server parts, through the SDK's server-only entries, as the SDK peer imports only its server modules.
import { McpServer } from "@agentd/sdk/mcp/server";
import { createStreamableHttpServer } from "@agentd/sdk/transport/http-server";
import { serveControl } from "../../lib/server-control.ts";
import { ECHO_TOOL, echo } from "../../lib/echo-tool.ts";

const mode = process.argv[2] === "json" ? "json" : "sse";
const maxSessions = Number(process.argv[3] ?? 1024);

const mcp = new McpServer({ name: "bench-echo", version: "1.0.0" });
mcp.tool(ECHO_TOOL, echo);
const { BENCH_TLS_CERT: cert, BENCH_TLS_KEY: key, BENCH_TLS_CA: ca } = process.env;
const tls = cert && key ? { tls: { cert, key, ...(ca ? { ca } : {}) }, ...(ca ? { auth: { mtls: true } } : {}) } : {};
const server = await createStreamableHttpServer({
  ...tls,
  responseMode: mode,
  limits: { maxSessions },
  onsession(transport) {
    void mcp.connect(transport);
  },
});
serveControl({ port: server.port }, () => server.close());
