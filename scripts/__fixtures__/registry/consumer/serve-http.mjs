// Serving MCP over HTTP from the installed SDK: under Bun it listens; under Node it must fail in one line.
import { createStreamableHttpServer } from "@agentd/sdk/transport";

try {
  const server = await createStreamableHttpServer({ hostname: "127.0.0.1", port: 0, onsession: () => {} });
  console.log(JSON.stringify({ listening: server.url.href }));
  await server.close();
} catch (e) {
  console.log(JSON.stringify({ code: e.code, message: e.message }));
}
