/**
 * Profiling aid (not part of `bun bench/run.ts`): the bare `Bun.serve` floor of the HTTP benchmark, made to
 * touch what agentd's server must touch per request before any of its own logic — the path (`req.url`), the
 * request's `Headers` (Host, Origin, Accept, Content-Type, Content-Length, `Mcp-Session-Id`,
 * `MCP-Protocol-Version`), the body as bytes with a strict UTF-8 decode, and an answer carrying the session
 * id header — and to answer at the end of the turn, as agentd does. What it costs above the floor is the
 * native share of agentd's gap that no trimming of agentd's own code can remove.
 *
 *   RPS_CPU_SERVER=bench/profile/floor-reads.ts bun bench/profile/rps-cpu.ts 6 3
 *
 * (`json|sse` and the session cap are accepted and ignored: it always answers JSON.)
 */
import { serveControl } from "../lib/server-control.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });
let nextSession = 0;
let turn: Promise<void> | undefined;
const nextTurn = () =>
  (turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turn = undefined;
      resolve();
    }),
  ));
const sessionHeaders = new Map<string, Headers>();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const url = req.url;
    const h = req.headers;
    const seen = [h.get("host"), h.get("origin"), h.get("accept"), h.get("content-type"), h.get("content-length")];
    const sid = h.get("mcp-session-id");
    const version = h.get("mcp-protocol-version");
    if (!url.endsWith("/mcp") || seen[0] === null || version === "") return new Response("no", { status: 400 });
    const text = decoder.decode(new Uint8Array(await req.arrayBuffer()));
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
    let headers = sessionHeaders.get(sid ?? "");
    if (!headers) sessionHeaders.set(sid ?? "", (headers = new Headers({ "mcp-session-id": sid ?? "" })));
    return Response.json(
      { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: m.params?.arguments?.text }] } },
      { headers },
    );
  },
});
serveControl({ port: server.port }, () => server.stop(true));
