// Serving MCP over HTTP from the installed SDK, under Node and under Bun: it listens and answers initialize.
import { createStreamableHttpServer } from "@agentd/sdk/transport";

const server = await createStreamableHttpServer({
  hostname: "127.0.0.1",
  port: 0,
  onsession(transport) {
    transport.onmessage = (m) => {
      if (m.method === "initialize")
        void transport.send({
          jsonrpc: "2.0",
          id: m.id,
          result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: "consumer", version: "0" } },
        });
    };
    return transport.start();
  },
});
try {
  const res = await fetch(server.url, {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "consumer", version: "0" } },
    }),
  });
  const body = await res.text();
  console.log(
    JSON.stringify({
      listening: server.url.href,
      status: res.status,
      session: res.headers.has("mcp-session-id"),
      answered: body.includes('"name":"consumer"'),
    }),
  );
} finally {
  await server.close();
}
