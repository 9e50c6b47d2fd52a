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
import { type Census, startCensus, totalOf } from "./__fixtures__/alloc-census.ts";

const MAX_OBJECTS_PER_REQUEST = 58.5;

let census: Census | undefined;
afterEach(async () => {
  await census?.stop();
  census = undefined;
});

test(`an SSE tools/call costs the transport at most ${MAX_OBJECTS_PER_REQUEST} heap objects, no list for its response`, async () => {
  // Each answer an SSE body ending in its response.
  census = startCensus("sse", async (r, id) => {
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    expect(await r.text()).toEndWith(`data: {"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"hi"}]}}\n\n`);
  });
  const perRequest = await census.perRequest();
  const total = totalOf(perRequest);
  // On failure, which kinds of object a request makes.
  if (process.env.REQUEST_ALLOCS_SHOW || total > MAX_OBJECTS_PER_REQUEST || (perRequest.Array ?? 0) >= 2.5)
    console.error({ total, perRequest });
  expect(total).toBeLessThanOrEqual(MAX_OBJECTS_PER_REQUEST);
  expect(perRequest.Array ?? 0).toBeLessThan(2.5);
  // No table made and dropped per request.
  expect(perRequest.Map ?? 0).toBeLessThan(0.5);
}, 120_000);
