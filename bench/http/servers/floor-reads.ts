/**
 * The floor with the required reads: the bare `Bun.serve` floor (`bun-floor.ts`) made to touch what
 * agentd's server must touch per request before any logic of its own — the path (matched by Bun's router,
 * as agentd's Bun adapter matches its endpoint), the request's headers
 * (Host, Origin, Accept, Content-Type, Content-Length, `Mcp-Session-Id`, `MCP-Protocol-Version`: the
 * DNS-rebinding checks, content negotiation, the body limit, the session and its revision), the body as
 * bytes with a strict UTF-8 check, and an answer carrying the session id header — and to answer at the end
 * of the turn, as agentd does (answering a turn's requests together costs less per request, bench/NOTES.md).
 * Each read, and the answer, is made the cheapest way agentd's server makes it. What this costs above the floor is the
 * native share of agentd's gap that no trimming of agentd's own code can remove: the HTTP benchmark
 * measures it beside the floor as a reference row.
 *
 * `bun floor-reads.ts json|sse`: the echo answered as JSON or as an SSE stream (priming event, response
 * event, end; as `bun-floor.ts sse`). Prints `{"port":N}`.
 */
import { serveControl } from "../../lib/server-control.ts";
import { nextTurn } from "./next-turn.ts";

const sse = process.argv[2] === "sse";
const decoder = new TextDecoder("utf-8", { fatal: true });
let nextSession = 0;
let nextStream = 0;
const sessionHeaders = new Map<string, Headers>();
const contentType = sse ? "text/event-stream" : "application/json;charset=utf-8";
const headersOf = (sid: string) => {
  let headers = sessionHeaders.get(sid);
  if (!headers) sessionHeaders.set(sid, (headers = new Headers({ "content-type": contentType, "mcp-session-id": sid })));
  return headers;
};

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch: () => new Response("Not Found", { status: 404 }),
  routes: { "/mcp": endpoint },
});

async function endpoint(req: Request): Promise<Response> {
  const h = req.headers;
  const seen = [h.get("host"), h.get("origin"), h.get("accept"), h.get("content-type"), h.get("content-length")];
  const sid = h.get("mcp-session-id");
  const version = h.get("mcp-protocol-version");
  if (seen[0] === null || version === "") return new Response("no", { status: 400 });
  const text = decoder.decode(await req.arrayBuffer());
  const m = JSON.parse(text) as { id?: number; method: string; params?: { arguments?: { text?: string }; protocolVersion?: string } };
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
  await nextTurn();
  const headers = headersOf(sid ?? "");
  const answer = { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: m.params?.arguments?.text }] } };
  if (!sse) return new Response(JSON.stringify(answer), { headers });
  const stream = ++nextStream;
  return new Response(`id: ${stream}.0\ndata: \n\nid: ${stream}.1\ndata: ${JSON.stringify(answer)}\n\n`, { headers });
}
serveControl({ port: server.port }, () => server.stop(true));
