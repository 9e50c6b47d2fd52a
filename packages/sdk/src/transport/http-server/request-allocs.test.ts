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
import { type Census, startCensus, totalOf } from "./__fixtures__/alloc-census.ts";

const MAX_OBJECTS_PER_REQUEST = 47.5;

let census: Census | undefined;
afterEach(async () => {
  await census?.stop();
  census = undefined;
});

test(`a JSON tools/call costs the transport at most ${MAX_OBJECTS_PER_REQUEST} heap objects`, async () => {
  census = startCensus("json", async (r, id) => {
    expect(await r.json()).toEqual({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "hi" }] } });
  });
  const perRequest = await census.perRequest();
  const total = totalOf(perRequest);
  // On failure, which kinds of object a request makes.
  if (total > MAX_OBJECTS_PER_REQUEST || process.env.REQUEST_ALLOCS_SHOW) console.error({ total, perRequest });
  expect(total).toBeLessThanOrEqual(MAX_OBJECTS_PER_REQUEST);
  // No table made and dropped per request: a session serving one request at a time uses its slots.
  expect(perRequest.Map ?? 0).toBeLessThan(0.5);
  // Two arrays: the POST's request ids and the runtime's; a lone answer goes out without a list of one.
  expect(perRequest.Array ?? 0).toBeLessThan(2.5);
}, 120_000);
