/**
 * What one idle session costs the server's JS heap: a real `McpServer` behind the Streamable HTTP server, a
 * client process opening sessions (initialize, initialized, a GET stream left open), and `bun:jsc`'s
 * `heapStats()` after a full collection, before and after. Divided over hundreds of sessions, so what
 * else the process allocates meanwhile is noise well under the headroom.
 *
 * Measured when the session was folded into one record (2026-12-01, Bun 1.4.4): 13–16 heap objects and
 * ~2.1–2.3 kB per idle session, of which 7 objects and ~1.2 kB are the runtime's response and stream; 28
 * objects and 2.9 kB before. The bound leaves headroom for noise, not for a closure or table per session
 * (bytes are not bounded: the heap's size after a collection varies more than its object count).
 * Measured when the GET stream's record went into the session's fields (2026-12-06): 4 objects of the
 * SDK's own per session (5 before), 2,684 against 2,741 bytes (`bench/profile/idle-classes.ts`).
 * The MCP peer's bytes are bounded on their own: an object's shallow size does not vary from run to run.
 */
import { afterEach, expect, test } from "bun:test";
import { estimateShallowMemoryUsageOf, heapStats } from "bun:jsc";
import { join } from "node:path";
import { McpServer } from "../../mcp/index.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

const SESSIONS = 400;
const WARM_UP = 100;
const MAX_OBJECTS_PER_SESSION = 19;
/**
 * A session's MCP peer (`Protocol`), in bytes (`estimateShallowMemoryUsageOf`): its own fields only (transport,
 * settings, owner, codec, next id, closed); what every session of a server shares (logger, handler table,
 * timeouts, limits) is one record the server makes once. Measured 65 bytes; 113 when each peer held its own
 * copy of those seven fields (2026-12-06).
 */
const MAX_PROTOCOL_BYTES = 72;

let server: StreamableHttpServer | undefined;
let client: Bun.Subprocess<"pipe", "pipe", "inherit"> | undefined;

afterEach(async () => {
  client?.stdin.end();
  if (client) await client.exited;
  client = undefined;
  await server?.close();
  server = undefined;
});

function settled(): { objects: number; bytes: number; types: Record<string, number> } {
  Bun.gc(true);
  Bun.gc(true);
  const s = heapStats();
  return { objects: s.objectCount, bytes: s.heapSize, types: s.objectTypeCounts };
}

test(`an idle session with its GET stream open costs at most ${MAX_OBJECTS_PER_SESSION} heap objects, its MCP peer at most ${MAX_PROTOCOL_BYTES} bytes`, async () => {
  const mcp = new McpServer({ name: "idle", version: "1.0.0" });
  mcp.tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args) => ({
    content: [{ type: "text", text: String(args.text) }],
  }));
  server = await createStreamableHttpServer({
    hostname: "127.0.0.1",
    port: 0,
    limits: { maxSessions: SESSIONS + WARM_UP + 10 },
    onsession(transport) {
      void mcp.connect(transport);
    },
  });
  // First sessions warm up the code paths (compiled code and shapes are not per session).
  const open = async (n: number) => {
    const child = Bun.spawn(
      [process.execPath, join(import.meta.dir, "__fixtures__", "idle-sessions-client.ts"), server!.url.href, String(n)],
      {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "inherit",
        // Each GET stream holds a connection: lift the client's cap on concurrent fetches.
        env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(SESSIONS + 64) },
      },
    );
    const { value } = await child.stdout.getReader().read();
    expect(JSON.parse(new TextDecoder().decode(value))).toEqual({ open: n });
    return child;
  };
  const warm = await open(WARM_UP);
  try {
    const before = settled();
    client = await open(SESSIONS);
    expect(server.stats()).toEqual({ sessions: SESSIONS + WARM_UP, streams: SESSIONS + WARM_UP });
    const after = settled();
    const objects = (after.objects - before.objects) / SESSIONS;
    const bytes = (after.bytes - before.bytes) / SESSIONS;
    const grown = Object.entries(after.types)
      .map(([type, n]) => [type, (n - (before.types[type] ?? 0)) / SESSIONS] as const)
      .filter(([, d]) => d >= 0.5);
    // On failure, which kinds of object grew per session.
    if (objects > MAX_OBJECTS_PER_SESSION) console.error({ objects, bytes, grown });
    expect(objects).toBeLessThanOrEqual(MAX_OBJECTS_PER_SESSION);
    // Of the SDK's own, four objects (heapStats counts class instances as `Object`): the session, its MCP
    // peer's `ServerSession` and `Protocol`, and its GET stream's writer. The GET stream's record is the
    // session's own fields (five objects before).
    expect(grown.find(([type]) => type === "Object")?.[1] ?? 0).toBeLessThan(4.5);
    // No closures and no scopes per session.
    expect(grown.find(([type]) => type === "Function")).toBeUndefined();
    expect(grown.find(([type]) => type === "JSLexicalEnvironment")).toBeUndefined();
    const peers = mcp.sessions().map((session) => estimateShallowMemoryUsageOf(session.protocol));
    expect(peers).toHaveLength(SESSIONS + WARM_UP);
    expect(Math.max(...peers)).toBeLessThanOrEqual(MAX_PROTOCOL_BYTES);
  } finally {
    warm.stdin.end();
    await warm.exited;
  }
}, 120_000);
