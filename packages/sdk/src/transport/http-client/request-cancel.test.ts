/**
 * Requests the protocol layer gives up on (timeout, abort → `notifications/cancelled`): the client transport
 * stops reading their answer, and neither side keeps a stream open. Scripted servers for the transport's own
 * behaviour, then `McpClient` against our own Streamable HTTP server (both response modes) on 127.0.0.1.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { McpClient, McpServer } from "../../mcp/index.ts";
import { AgentdError } from "../../wire/errors.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../http-server/index.ts";
import { collect, initializeParams } from "./__fixtures__/collect.ts";
import { initialized, sse, startFakeServer, type FakeServer } from "./__fixtures__/fake-server.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";

const T = 60_000;
const fakes: FakeServer[] = [];
const transports: StreamableHttpClientTransport[] = [];
const servers: StreamableHttpServer[] = [];
const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(fakes.splice(0).map((s) => s.stop()));
});

const cancelled = (requestId: number) => ({
  jsonrpc: "2.0" as const,
  method: "notifications/cancelled",
  params: { requestId, reason: "test" },
});

/** A scripted server: `tools/call` gets `answer(id)`; every other request is initialize; the rest 202. */
function scripted(answer: (id: unknown) => Response) {
  const server = startFakeServer((req) => {
    const m = (req.body ?? {}) as { id?: unknown; method?: string };
    if (m.method === "initialize") return initialized(m.id);
    if (m.method === "tools/call") return answer(m.id);
    return new Response(null, { status: 202 });
  });
  fakes.push(server);
  return server;
}

async function connect(url: string) {
  const t = new StreamableHttpClientTransport(url, { openGetStream: false });
  transports.push(t);
  const c = collect(t);
  await t.start();
  await c.request("initialize", initializeParams());
  return { t, c };
}

describe("the client transport on notifications/cancelled", () => {
  test(
    "an open POST response stream is aborted at once and forgotten",
    async () => {
      let gone!: () => void;
      const serverSawLeave = new Promise<void>((r) => (gone = r));
      const server = scripted(() => {
        const h = sse();
        h.write("id: e1\ndata: \n\n");
        h.oncancel = gone;
        return h.response;
      });
      const { t, c } = await connect(server.url);
      await t.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow" } });
      expect(t.openStreams).toBe(1);
      await t.send(cancelled(7));
      expect(t.openStreams).toBe(0);
      await serverSawLeave;
      expect(server.requests.some((r) => (r.body as { method?: string }).method === "notifications/cancelled")).toBe(true);
      // Forgotten quietly: no local error response for the request, no transport error.
      expect(c.messages.filter((m) => m.id === 7)).toEqual([]);
      expect(c.errors).toEqual([]);
    },
    T,
  );

  test(
    "a stream waiting to reconnect is dropped too: it never resumes",
    async () => {
      const server = scripted(() => {
        const h = sse();
        // An event id, then the server closes the connection (SSE polling): the client waits `retry` ms.
        h.write("id: e1\nretry: 60000\ndata: \n\n");
        h.end();
        return h.response;
      });
      const { t, c } = await connect(server.url);
      await t.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "slow" } });
      expect(t.openStreams).toBe(1);
      await t.send(cancelled(8));
      expect(t.openStreams).toBe(0);
      expect(c.messages.filter((m) => m.id === 8)).toEqual([]);
    },
    T,
  );

  test(
    "a POST still awaiting its JSON answer is aborted; its send() resolves quietly",
    async () => {
      let gone!: () => void;
      const serverSawLeave = new Promise<void>((r) => (gone = r));
      const server = scripted(() => {
        // Headers go out with the first byte: a JSON body that never completes keeps the client reading.
        const body = new ReadableStream<Uint8Array>({
          start: (ctrl) => ctrl.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0",')),
          cancel: () => gone(),
        });
        return new Response(body, { headers: { "content-type": "application/json" } });
      });
      const { t, c } = await connect(server.url);
      const call = t.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "slow" } });
      await c.until(() => server.requests.some((r) => (r.body as { id?: unknown }).id === 9), "the server to get the call");
      await t.send(cancelled(9));
      expect(await call).toBeUndefined();
      await serverSawLeave;
      expect(c.messages.filter((m) => m.id === 9)).toEqual([]);
      expect(c.errors).toEqual([]);
    },
    T,
  );
});

describe("McpClient ⇄ our Streamable HTTP server: timed-out calls leave nothing open", () => {
  for (const responseMode of ["sse", "json"] as const) {
    test(
      `${responseMode} mode: 40 timed-out calls (over maxStreamsPerSession and maxInFlightPerSession), then a fast call`,
      async () => {
        let aborted = 0;
        const mcp = new McpServer({ name: "cancel-test", version: "0" });
        mcp.tool(
          { name: "slow", inputSchema: { type: "object" } },
          (_args, ctx) =>
            new Promise((_resolve, reject) => {
              if (ctx.signal.aborted) return reject(ctx.signal.reason);
              ctx.signal.addEventListener("abort", () => {
                aborted++;
                reject(ctx.signal.reason);
              });
            }),
        );
        mcp.tool({ name: "fast", inputSchema: { type: "object" } }, () => ({ content: [{ type: "text", text: "ok" }] }));
        const server = await createStreamableHttpServer({
          responseMode,
          limits: { maxStreamsPerSession: 16, maxInFlightPerSession: 10 },
          onsession: async (transport) => {
            await mcp.connect(transport);
          },
        });
        servers.push(server);
        const transport = new StreamableHttpClientTransport(server.url, { openGetStream: false });
        const client = new McpClient({ name: "cancel-test", version: "0" });
        clients.push(client);
        await client.connect(transport);

        const outcomes: string[] = [];
        for (let i = 0; i < 40; i++)
          outcomes.push(
            await client.callTool("slow", {}, { timeoutMs: 100 }).then(
              () => "resolved",
              (e: unknown) => (AgentdError.isInstance(e) ? e.code : String(e)),
            ),
          );
        // Every call timed out; none was refused by a limit (that would be E_TRANSPORT with HTTP 429).
        expect(outcomes).toEqual(Array(40).fill("E_TIMEOUT"));
        const fast = await client.callTool("fast", {});
        expect(fast.content).toEqual([{ type: "text", text: "ok" }]);
        const until = async (pred: () => boolean, what: string) => {
          const deadline = performance.now() + 20_000;
          while (!pred()) {
            if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
            await Bun.sleep(20);
          }
        };
        // The fast call's own stream ends just after its response was delivered.
        await until(() => transport.openStreams === 0, "the client to hold no open stream");
        await until(() => server.stats().streams === 0, "the server to count no open stream");
        // The server's handlers heard of the cancellations (a cancel can overtake its own request over HTTP;
        // most must arrive in order).
        await until(() => aborted >= 30, "the slow handlers to be aborted");
      },
      T,
    );
  }
});
