/**
 * The HTTP floor: a bare `Bun.serve` on 127.0.0.1 with no MCP in it. A POST is parsed as JSON-RPC and
 * answered as JSON: `initialize` with a session id header, a notification with 202, anything else with the
 * echo result. `bun bun-floor.ts sse` answers that echo as `text/event-stream` instead, with exactly what
 * the 2025-11-25 transport asks of a POST's SSE stream and nothing else: a priming event (an event id and
 * an empty `data`), the response as an event with its own id (ids unique across the server's streams),
 * then the end of the stream — one string body, as a server whose answer is complete can send it. A GET opens an SSE stream that writes one comment and then stays open — the least a server
 * holding idle sessions can spend on them. Prints `{"port":N}`. With BENCH_TLS_CERT and BENCH_TLS_KEY (PEM
 * paths) it serves HTTPS; with BENCH_TLS_CA as well, it requires a client certificate the CA signed.
 */
import { readFileSync } from "node:fs";
import { serveControl } from "../../lib/server-control.ts";

const PRIME = new TextEncoder().encode(": open\n\n");
const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
let nextSession = 0;
const sse = process.argv[2] === "sse";
let nextStream = 0;
const SSE_INIT = { headers: { "content-type": "text/event-stream" } };

const { BENCH_TLS_CERT: cert, BENCH_TLS_KEY: key, BENCH_TLS_CA: ca } = process.env;
const pem = (path: string) => readFileSync(path, "utf8");
const tls =
  cert && key
    ? { tls: { cert: pem(cert), key: pem(key), ...(ca ? { ca: pem(ca), requestCert: true, rejectUnauthorized: true } : {}) } }
    : {};

const server = Bun.serve({
  ...tls,
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    if (req.method === "GET") {
      let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
          streams.add(c);
          c.enqueue(PRIME);
        },
        cancel: () => void (controller && streams.delete(controller)),
      });
      return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    }
    const m = (await req.json()) as { id?: number; method: string; params?: { arguments?: { text?: string }; protocolVersion?: string } };
    if (m.id === undefined) return new Response(null, { status: 202 });
    if (m.method === "initialize")
      return Response.json(
        {
          jsonrpc: "2.0",
          id: m.id,
          result: { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "floor", version: "1" } },
        },
        { headers: { "mcp-session-id": `s-${++nextSession}` } },
      );
    const answer = { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: m.params?.arguments?.text }] } };
    if (!sse) return Response.json(answer);
    const stream = ++nextStream;
    return new Response(`id: ${stream}.0\ndata: \n\nid: ${stream}.1\ndata: ${JSON.stringify(answer)}\n\n`, SSE_INIT);
  },
});
serveControl({ port: server.port }, () => server.stop(true));
