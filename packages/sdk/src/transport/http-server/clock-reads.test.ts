/**
 * A JSON-mode request into a session reads the wall clock once: the session's activity is recorded when its
 * exchange settles (the session is busy until then), not also when it is looked up and when its response is
 * routed. A clock read costs ~30 ns in Bun, more than the session's own lookup in its table (bench/NOTES.md).
 */
import { afterEach, expect, test } from "bun:test";
import { callTool, createResponder, openSession, post } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

test("a JSON request into a session reads the wall clock once", async () => {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, responseMode: "json" });
  servers.push(server);
  const s = await openSession(server.url);
  const requests = 40;
  const realNow = Date.now;
  let reads = 0;
  Date.now = () => {
    reads++;
    return realNow();
  };
  try {
    for (let i = 1; i <= requests; i++) {
      const res = await post(server.url, callTool(i, "echo", `n${i}`), s.headers);
      expect(await res.json()).toMatchObject({ id: i, result: { content: [{ text: `n${i}` }] } });
    }
  } finally {
    Date.now = realNow;
  }
  // One read a request; the bound leaves room for a reaper tick. Three a request before.
  expect(reads).toBeLessThan(requests * 1.5);
  expect(reads).toBeGreaterThanOrEqual(requests);
});
