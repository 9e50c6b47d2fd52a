/**
 * What one SSE-mode `tools/call` costs the transport in heap objects, counted as `request-allocs.test.ts`
 * counts a JSON one (the same census server, `CENSUS_RESPONSE_MODE=sse`): the collector held off, the heap's
 * object counts by type before and after a window of requests, less an empty window.
 *
 * Measured on 2026-12-07 (Bun 1.4.4, 5,000 requests of warm-up): 60.5 objects a request before, 56.2 after,
 * of which 6.05 arrays before and 2.03 after — the POST's request ids and the runtime's. Gone: a list of one
 * `[id, seq]` pair for the stream's lone response (two arrays, held on in the session's memory of ended
 * streams) and the empty lists two loops walked when a writer ended (its end listeners, the session's
 * stream table). Six runs after: 56.2–56.9; the bound leaves the JIT's spread as headroom, not an array.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";

const REQUESTS = 2000;
const CONNECTIONS = 8;
const WARM_UP = 5000;
const MAX_OBJECTS_PER_REQUEST = 58.5;
/** As in `request-allocs.test.ts`: the collector never runs. */
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

/** `each` echo calls in every session, one at a time per session; each answer an SSE body ending in its response. */
async function load(url: string, sids: string[], each: number): Promise<void> {
  await Promise.all(
    sids.map(async (sid) => {
      const headers = { ...HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
      for (let i = 1; i <= each; i++) {
        const body = `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`;
        const r = await fetch(url, { method: "POST", headers, body });
        expect(r.headers.get("content-type")).toBe("text/event-stream");
        expect(await r.text()).toEndWith(`data: {"jsonrpc":"2.0","id":${i},"result":{"content":[{"type":"text","text":"hi"}]}}\n\n`);
      }
    }),
  );
}

test(`an SSE tools/call costs the transport at most ${MAX_OBJECTS_PER_REQUEST} heap objects, no list for its response`, async () => {
  child = Bun.spawn([process.execPath, join(import.meta.dir, "__fixtures__", "alloc-census-server.ts")], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...NO_GC, CENSUS_RESPONSE_MODE: "sse" },
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
  if (process.env.REQUEST_ALLOCS_SHOW || total > MAX_OBJECTS_PER_REQUEST || (perRequest.Array ?? 0) >= 2.5)
    console.error({ total, perRequest });
  expect(total).toBeLessThanOrEqual(MAX_OBJECTS_PER_REQUEST);
  expect(perRequest.Array ?? 0).toBeLessThan(2.5);
  // No table made and dropped per request.
  expect(perRequest.Map ?? 0).toBeLessThan(0.5);
}, 120_000);
