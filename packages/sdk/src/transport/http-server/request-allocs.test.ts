/**
 * What one JSON-mode `tools/call` costs the transport in heap objects: a server child with a synchronous echo
 * on its sessions' transports (`__fixtures__/alloc-census-server.ts`, no MCP layer), the collector held off,
 * and `bun:jsc`'s object counts before and after a window of requests, less an empty window. Every object a
 * request allocates counts here, dead or alive: the collector's work per request, which profiles lump into
 * the runtime's share (`bench/profile/request-allocs.ts` measures the same through the whole server).
 *
 * Measured when the POST's answer became one promise settled by the handler (2026-12-06, Bun 1.4.4, 5,000
 * requests of warm-up): 50 objects per request (the floor with the same reads, `bench/http/servers/
 * floor-reads.ts`, 32), of which 9 scopes and 5 functions; 65 before (a `Map` pair per request, the body
 * read's promise with its callbacks, a catch-all promise). Then (same day, later) 46.2–46.3, from 48.2–48.6:
 * a lone JSON answer held without a list (2 arrays a request, not 3) and the extra's header view without a
 * memo beside it (a scope less). The bound leaves headroom for the JIT, whose upper tiers sink some
 * allocations at a moment the machine's load decides (three runs each spread 0.4), not for those.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";

const REQUESTS = 2000;
const CONNECTIONS = 8;
const WARM_UP = 5000;
const MAX_OBJECTS_PER_REQUEST = 47.5;
/** Far above what the test allocates, and the collection timers waiting forever: the collector never runs. */
const NO_GC = {
  BUN_JSC_smallHeapSize: "8000000000",
  BUN_JSC_mediumHeapSize: "8000000000",
  BUN_JSC_largeHeapSize: "8000000000",
  BUN_JSC_percentCPUPerMBForEdenTimer: "0.000000001",
  BUN_JSC_percentCPUPerMBForFullTimer: "0.000000001",
  BUN_GC_TIMER_DISABLE: "1",
  BUN_IDLE_GC_SECONDS: "100000",
};
const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let child: Bun.Subprocess<"pipe", "pipe", "inherit"> | undefined;

afterEach(async () => {
  child?.kill();
  await child?.exited;
  child = undefined;
});

/** One session on `url`: initialize, then initialized; its id. */
async function openSession(url: string): Promise<string> {
  const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "census", version: "1" } };
  const r = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }),
  });
  const sid = r.headers.get("mcp-session-id") as string;
  await r.text();
  const headers = { ...HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
  const n = await fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  await n.text();
  return sid;
}

/** `each` echo calls in every session, one at a time per session. */
async function load(url: string, sids: string[], each: number): Promise<void> {
  await Promise.all(
    sids.map(async (sid) => {
      const headers = { ...HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
      for (let i = 1; i <= each; i++) {
        const body = `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`;
        const r = await fetch(url, { method: "POST", headers, body });
        expect(await r.json()).toEqual({ jsonrpc: "2.0", id: i, result: { content: [{ type: "text", text: "hi" }] } });
      }
    }),
  );
}

test(`a JSON tools/call costs the transport at most ${MAX_OBJECTS_PER_REQUEST} heap objects`, async () => {
  child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "alloc-census-server.ts")], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...NO_GC },
  });
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<Record<string, number>> => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return JSON.parse(line);
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("the census server exited");
      buffered += value;
    }
  };
  const command = async (c: string) => {
    child?.stdin.write(`${c}\n`);
    await child?.stdin.flush();
    return nextLine();
  };
  const { port } = await nextLine();
  const url = `http://127.0.0.1:${port}/mcp`;
  const sids = await Promise.all(Array.from({ length: CONNECTIONS }, () => openSession(url)));
  await load(url, sids, WARM_UP / CONNECTIONS);
  let perRequest: Record<string, number> = {};
  // Every request makes a `Response`: fewer counted means a collection ran after all; that window again.
  for (let attempt = 0; (perRequest.Response ?? 0) < 1; attempt++) {
    if (attempt === 5) throw new Error("a collection ran in every window");
    await command("mark");
    const empty = await command("count");
    await command("mark");
    await load(url, sids, REQUESTS / CONNECTIONS);
    const full = await command("count");
    perRequest = {};
    for (const type of new Set([...Object.keys(full), ...Object.keys(empty)]))
      perRequest[type] = ((full[type] ?? 0) - (empty[type] ?? 0)) / REQUESTS;
  }
  const total = Object.values(perRequest).reduce((s, n) => s + n, 0);
  // On failure, which kinds of object a request makes.
  if (total > MAX_OBJECTS_PER_REQUEST || process.env.REQUEST_ALLOCS_SHOW) console.error({ total, perRequest });
  expect(total).toBeLessThanOrEqual(MAX_OBJECTS_PER_REQUEST);
  // No table made and dropped per request: a session serving one request at a time uses its slots.
  expect(perRequest.Map ?? 0).toBeLessThan(0.5);
  // Two arrays: the POST's request ids and the runtime's; a lone answer goes out without a list of one.
  expect(perRequest.Array ?? 0).toBeLessThan(2.5);
}, 120_000);
