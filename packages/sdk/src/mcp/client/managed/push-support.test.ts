/** supportsSubscribe() over HTTP: a server that refuses the GET stream (405) cannot push resource updates. */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../../../log.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../../../transport/http-server/index.ts";
import { StreamableHttpClientTransport } from "../../../transport/http-client/index.ts";
import { McpServer } from "../../server/server.ts";
import { ManagedMcpClient } from "./managed-client.ts";

let http: StreamableHttpServer | undefined;
let front: ReturnType<typeof Bun.serve> | undefined;
let client: ManagedMcpClient | undefined;
afterEach(async () => {
  await client?.close();
  await http?.close();
  front?.stop(true);
  client = http = front = undefined;
});

async function serverWithSubscribableResource(): Promise<StreamableHttpServer> {
  const server = new McpServer({ name: "push-test", version: "1" });
  server.resource({ uri: "test://r", name: "r" }, (uri) => ({ contents: [{ uri, text: "x" }] }));
  return createStreamableHttpServer({ onsession: (t) => void server.connect(t) });
}

const managed = (url: string, logger = memoryLogger()) =>
  new ManagedMcpClient({
    name: "push",
    clientInfo: { name: "t", version: "1" },
    transportFactory: () => new StreamableHttpClientTransport(url, { name: "push" }),
    logger,
  });

test("a server offering the GET stream supports subscriptions", async () => {
  http = await serverWithSubscribableResource();
  client = managed(http.url.href);
  await client.start();
  expect(client.serverCapabilities.resources?.subscribe).toBe(true);
  expect(client.supportsSubscribe()).toBe(true);
});

test("a server answering 405 to the GET stream does not, and that is logged", async () => {
  http = await serverWithSubscribableResource();
  const upstream = http.url;
  // A front that refuses GET (no server push) and forwards everything else.
  front = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      if (req.method === "GET") return new Response(null, { status: 405, headers: { Allow: "POST, DELETE" } });
      const headers = new Headers(req.headers);
      headers.set("host", upstream.host);
      return fetch(upstream, { method: req.method, headers, body: req.method === "POST" ? await req.arrayBuffer() : null });
    },
  });
  const logger = memoryLogger();
  client = managed(`http://127.0.0.1:${front.port}/mcp`, logger);
  await client.start();
  expect(client.serverCapabilities.resources?.subscribe).toBe(true);
  expect(client.supportsSubscribe()).toBe(false);
  expect(logger.records.some((r) => r.event === "mcp.push_unavailable" && r.getStream === "unsupported")).toBe(true);
});

test("reactivity over HTTP switched off (push: false): request/response only, no GET stream, subscriptions unsupported", async () => {
  http = await serverWithSubscribableResource();
  let transport: StreamableHttpClientTransport | undefined;
  client = new ManagedMcpClient({
    name: "push",
    clientInfo: { name: "t", version: "1" },
    transportFactory: () => (transport = new StreamableHttpClientTransport(http!.url.href, { name: "push", openGetStream: false })),
    push: false,
  });
  await client.start();
  expect(client.supportsSubscribe()).toBe(false);
  expect(transport?.getStreamState).toBe("off");
  expect((await client.readResource("test://r")).contents[0]).toMatchObject({ text: "x" });
});
