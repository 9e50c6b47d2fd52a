/**
 * An MCP server on the Streamable HTTP server in its own process, for `../configured-parts.test.ts`, with the
 * options its argument names: `plain` (the defaults: no proxy, no auth), `proxy-bearer` (a trusted proxy at
 * 127.0.0.1 and one bearer token, {@link TOKEN}) or `jwt` (one OAuth issuer on loopback that is never asked).
 * Prints `{"url":…}` once it listens; then answers each stdin line with the SDK's modules it has loaded, one
 * JSON line. Exits when stdin closes.
 */
import { McpServer } from "../../../mcp/server/index.ts";
import { createStreamableHttpServer, type StreamableHttpServerOptions } from "../index.ts";

/** The bearer token of `proxy-bearer`. */
export const TOKEN = "configured-parts-token-0123456789";

const configured: Record<string, Partial<StreamableHttpServerOptions>> = {
  plain: {},
  "proxy-bearer": { behindProxy: { trustedProxies: ["127.0.0.1"] }, auth: { bearerTokens: [TOKEN] } },
  jwt: { auth: { jwt: [{ issuer: "http://127.0.0.1:9/issuer" }] } },
};

if (import.meta.main) {
  const mcp = new McpServer({ name: "configured-parts", version: "1.0.0" });
  mcp.tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object" } }, () => ({ content: [] }));
  const server = await createStreamableHttpServer({
    ...configured[process.argv[2] ?? "plain"],
    hostname: "127.0.0.1",
    port: 0,
    responseMode: "json",
    onsession(transport) {
      void mcp.connect(transport);
    },
  });
  console.log(JSON.stringify({ url: server.url.href }));
  const sdk = "/packages/sdk/src/";
  for await (const _line of console) {
    const modules = Object.keys(require.cache)
      .filter((path) => path.includes(sdk))
      .map((path) => path.slice(path.indexOf(sdk) + sdk.length));
    console.log(JSON.stringify({ modules }));
  }
  await server.close();
  // Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
  process.stdout.once("error", () => process.exit(0));
  process.stdout.end(() => process.exit(0));
}
