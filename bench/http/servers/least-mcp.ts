/**
 * The least MCP server: what an MCP server over Streamable HTTP (2025-11-25) must do per `tools/call` in a
 * session, hand-written on the floor with the required reads (`floor-reads.ts`), plus the cheapest form of
 * each protection agentd keeps — a reference row of the HTTP benchmark that says what 0.8× the bare floor
 * leaves for a server's own design. Each step is made the cheapest way it can be:
 *
 * - the path by Bun's router; Host checked against the listener's own names, Origin (absent, or the same);
 *   Accept must list both media types (406), Content-Type must be JSON (415), Content-Length within a limit
 *   (413), and any body, a chunked one too, bounded by the runtime (`maxRequestBodySize`, 413); the body as
 *   bytes, strictly UTF-8 (400), parsed (400);
 * - the JSON-RPC envelope: an object with `jsonrpc` "2.0", a string `method`, a string or number `id`, an
 *   object `params` if any (400);
 * - the session: `Mcp-Session-Id` known (404), `MCP-Protocol-Version` the session's (400);
 * - `tools/call`: a string `name` naming a tool, an object `arguments` that its input schema accepts (here
 *   one required string, checked by hand: the cheapest a compiled validator can be), the tool's result as
 *   the response (arguments it refuses a tool execution error); `ping`; an unknown method -32601;
 * - the answer at the end of the turn, with the session id header (as the floor with the reads);
 * - agentd's protections, none of which the specification asks for: the session's requests in flight
 *   tracked (a duplicate id refused; what a cancellation needs), a deadline on the body read (a set entry a
 *   sweep looks at), a bound on JSON nesting (one pass over the text); in SSE mode, the answer's events kept
 *   for a `Last-Event-ID` resumption, in a ring of the session's last 16 (resuming itself, a GET, is not
 *   served here).
 *
 * `bun least-mcp.ts json|sse`; prints `{"port":N}`; stdin's end stops it. `LEAST_MCP_ONLY=inflight,deadline,
 * depth,replay` keeps only the protections named (empty: none), to price each one:
 *
 *   RPS_CPU_MODES=json bun bench/profile/rps-cpu.ts 8 3 .::bench/http/servers/least-mcp.ts \
 *     ".::bench/http/servers/least-mcp.ts::LEAST_MCP_ONLY="
 */
import { serveControl } from "../../lib/server-control.ts";
import { nextTurn } from "./next-turn.ts";

const sse = process.argv[2] === "sse";
const only = process.env.LEAST_MCP_ONLY;
const add = new Set(only === undefined ? ["inflight", "deadline", "depth", "replay"] : only.split(",").filter(Boolean));
const MAX_BODY = 4 * 1024 * 1024;
const BODY_TIMEOUT_MS = 30_000;
const MAX_DEPTH = 64;
const decoder = new TextDecoder("utf-8", { fatal: true });
const contentType = sse ? "text/event-stream" : "application/json;charset=utf-8";

interface Session {
  id: string;
  version: string;
  headers: Headers;
  inFlight: Map<string | number, true> | undefined;
  /** The session's last events for a resumption (`replay`): a ring of event ids and their data. */
  kept: { ids: string[]; data: string[]; next: number } | undefined;
}
const sessions = new Map<string, Session>();
let nextStream = 0;

interface Tool {
  check(args: Record<string, unknown>): string | undefined;
  call(args: Record<string, unknown>): Record<string, unknown>;
}
const tools = new Map<string, Tool>([
  [
    "echo",
    {
      check: (a) => (typeof a.text === "string" ? undefined : "text: expected a string"),
      call: (a) => ({ content: [{ type: "text", text: a.text }] }),
    },
  ],
]);

// Slow bodies: the reads still waiting, by request, swept once a second; one past the deadline has its
// connection closed (the cheapest real deadline: a map entry set and deleted per request, nothing allocated).
const waiting = new Map<Request, number>();
if (add.has("deadline"))
  setInterval(() => {
    const now = performance.now();
    for (const [req, at] of waiting)
      if (now - at > BODY_TIMEOUT_MS) {
        waiting.delete(req);
        server.timeout(req, 1);
      }
  }, 1000).unref();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  // Every body bounded by the runtime, a chunked one (no length to check first) included.
  maxRequestBodySize: MAX_BODY,
  fetch: () => new Response("Not Found", { status: 404 }),
  routes: { "/mcp": { POST: endpoint } },
});
const hosts = new Set([`127.0.0.1:${server.port}`, `localhost:${server.port}`]);
const origins = new Set([`http://127.0.0.1:${server.port}`, `http://localhost:${server.port}`]);

const status = (code: number, text: string) => new Response(text, { status: code });
const rpcError = (id: unknown, code: number, message: string, http = 200) =>
  Response.json({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }, { status: http });

/** Deepest nesting of `text` over MAX_DEPTH (one pass over the bytes, strings skipped). */
function tooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_DEPTH) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

async function endpoint(req: Request): Promise<Response> {
  const h = req.headers;
  const host = h.get("host");
  if (host === null || !hosts.has(host)) return status(403, "Forbidden: Host");
  const origin = h.get("origin");
  if (origin !== null && !origins.has(origin)) return status(403, "Forbidden: Origin");
  const accept = h.get("accept");
  if (accept === null || !accept.includes("application/json") || !accept.includes("text/event-stream"))
    return status(406, "Not Acceptable");
  const type = h.get("content-type");
  if (type === null || !type.startsWith("application/json")) return status(415, "Unsupported Media Type");
  const length = h.get("content-length");
  if (length !== null && Number(length) > MAX_BODY) return status(413, "Payload Too Large");
  const sid = h.get("mcp-session-id");
  const version = h.get("mcp-protocol-version");

  let bytes: ArrayBuffer;
  const deadline = add.has("deadline");
  if (deadline) waiting.set(req, performance.now());
  try {
    bytes = await req.arrayBuffer();
  } catch {
    // The runtime fails the read of a body past `maxRequestBodySize`.
    return status(413, "Payload Too Large");
  } finally {
    if (deadline) waiting.delete(req);
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return rpcError(null, -32700, "Parse error: not UTF-8", 400);
  }
  if (add.has("depth") && tooDeep(text)) return rpcError(null, -32600, "Invalid request: nested too deep", 400);
  let m: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  try {
    m = JSON.parse(text);
  } catch {
    return rpcError(null, -32700, "Parse error", 400);
  }
  if (typeof m !== "object" || m === null || Array.isArray(m) || m.jsonrpc !== "2.0" || typeof m.method !== "string")
    return rpcError(null, -32600, "Invalid request", 400);
  const id = m.id;
  if (id !== undefined && typeof id !== "string" && typeof id !== "number") return rpcError(null, -32600, "Invalid request: id", 400);
  const params = m.params;
  if (params !== undefined && (typeof params !== "object" || params === null)) return rpcError(id, -32600, "Invalid request: params", 400);
  const p = (params ?? {}) as Record<string, unknown>;

  if (m.method === "initialize" && sid === null) {
    const session: Session = {
      id: crypto.randomUUID(),
      version: typeof p.protocolVersion === "string" ? p.protocolVersion : "2025-11-25",
      headers: new Headers(),
      inFlight: undefined,
      kept: undefined,
    };
    session.headers = new Headers({ "content-type": contentType, "mcp-session-id": session.id });
    sessions.set(session.id, session);
    const result = { protocolVersion: session.version, capabilities: { tools: {} }, serverInfo: { name: "least-mcp", version: "1" } };
    return Response.json({ jsonrpc: "2.0", id, result }, { headers: { "mcp-session-id": session.id } });
  }
  if (sid === null) return status(400, "Bad Request: Mcp-Session-Id header is required");
  const session = sessions.get(sid);
  if (session === undefined) return status(404, "Not Found: no such session");
  if (version !== null && version !== session.version) return status(400, "Bad Request: MCP-Protocol-Version");
  if (id === undefined) return new Response(null, { status: 202 });

  const track = add.has("inflight");
  if (track) {
    if (session.inFlight?.has(id)) return rpcError(id, -32600, "Invalid request: id in flight", 400);
    (session.inFlight ??= new Map()).set(id, true);
  }
  let answer: Record<string, unknown>;
  if (m.method === "ping") answer = { jsonrpc: "2.0", id, result: {} };
  else if (m.method !== "tools/call") answer = { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${m.method}` } };
  else {
    const tool = typeof p.name === "string" ? tools.get(p.name) : undefined;
    const args = p.arguments ?? {};
    if (tool === undefined) answer = { jsonrpc: "2.0", id, error: { code: -32602, message: "Unknown tool" } };
    else if (typeof args !== "object" || args === null) answer = { jsonrpc: "2.0", id, error: { code: -32602, message: "arguments" } };
    else {
      const wrong = tool.check(args as Record<string, unknown>);
      // Arguments the schema refuses are a tool execution error the model can read (tools spec, "Error Handling").
      const result = wrong
        ? { content: [{ type: "text", text: `Invalid arguments: ${wrong}` }], isError: true }
        : tool.call(args as Record<string, unknown>);
      answer = { jsonrpc: "2.0", id, result };
    }
  }
  await nextTurn();
  if (track) session.inFlight?.delete(id);
  if (!sse) return new Response(JSON.stringify(answer), { headers: session.headers });
  const stream = ++nextStream;
  const data = JSON.stringify(answer);
  if (add.has("replay")) {
    const kept = (session.kept ??= { ids: [], data: [], next: 0 });
    const i = kept.next;
    kept.ids[i] = `${stream}.1`;
    kept.data[i] = data;
    kept.next = i + 1 === 16 ? 0 : i + 1;
  }
  return new Response(`id: ${stream}.0\ndata: \n\nid: ${stream}.1\ndata: ${data}\n\n`, { headers: session.headers });
}
serveControl({ port: server.port }, () => server.stop(true));
