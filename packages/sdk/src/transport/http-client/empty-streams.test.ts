/**
 * A server that answers the push GET with `retry: 0` and ends the stream at once must not make the client
 * re-GET in a tight loop: the `retry` value has a floor, empty streams back off and are given up on.
 * Real HTTP on 127.0.0.1; the assertions bound request counts, not timings.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { TappedTransport } from "../../mcp/client/managed/tapped-transport.ts";
import type { LossReason } from "../../mcp/client/managed/replay-policy.ts";
import { AgentdError } from "../../wire/errors.ts";
import { collect, initializeParams } from "./__fixtures__/collect.ts";
import { initialized, startFakeServer, type FakeServer } from "./__fixtures__/fake-server.ts";
import type { ReconnectOptions } from "./options.ts";
import { StreamableHttpClientTransport } from "./streamable-http-client.ts";

const T = 30_000;
const servers: FakeServer[] = [];
const clients: StreamableHttpClientTransport[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A server whose GET answers with `body` as an SSE stream that ends at once. */
function endingAtOnce(body: (n: number) => string) {
  let gets = 0;
  const server = startFakeServer((req) => {
    const m = (req.body ?? {}) as { id?: unknown; method?: string };
    if (req.method === "GET") return new Response(body(gets++), { headers: { "content-type": "text/event-stream" } });
    if (req.method === "DELETE") return new Response(null, { status: 204 });
    if (m.method === "initialize") return initialized(m.id);
    return new Response(null, { status: 202 });
  });
  servers.push(server);
  return { server, gets: () => gets };
}

/** Initialize a client (the push GET opens after `notifications/initialized`). */
async function session(url: string, reconnect?: Partial<ReconnectOptions>, wrap?: (t: StreamableHttpClientTransport) => TappedTransport) {
  const t = new StreamableHttpClientTransport(url, { reconnect });
  clients.push(t);
  const outer = wrap?.(t) ?? t;
  const c = collect(outer);
  await outer.start();
  await c.request("initialize", initializeParams());
  await outer.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { t, c };
}

/** An observation window: long enough for a tight loop to make thousands of requests. */
const watch = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("server-push streams that end at once", () => {
  test(
    "`retry: 0` and empty streams: default policy makes a handful of GETs, not thousands",
    async () => {
      const { server, gets } = endingAtOnce(() => "retry: 0\n\n");
      const { c } = await session(server.url);
      await c.until(() => gets() >= 1, "the first push GET");
      await watch(1500);
      // Before: ~1,000 GETs in 1.5 s. Now the first waits >= 500 ms (backoff over the 250 ms floor), then more.
      expect(gets()).toBeGreaterThanOrEqual(1);
      expect(gets()).toBeLessThanOrEqual(4);
    },
    T,
  );

  test(
    "a polling server (a fresh event id each time) is followed, but `retry: 0` is floored",
    async () => {
      const { server, gets } = endingAtOnce((n) => `id: poll-${n}\nretry: 0\ndata: \n\n`);
      const { t, c } = await session(server.url);
      await c.until(() => gets() >= 1, "the first push GET");
      await watch(1000);
      expect(gets()).toBeLessThanOrEqual(6); // 250 ms floor: at most ~4 re-GETs a second (before: hundreds)
      // Progress each time (a fresh id): no empty-stream backoff, and well past maxEmptyStreams it keeps going.
      await c.until(() => gets() >= 12, "twelve polls");
      expect(t.getStreamState).not.toBe("failed");
      expect(c.errors).toEqual([]);
    },
    T,
  );

  test(
    "after maxEmptyStreams empty streams in a row the stream fails through onerror: a push-stream loss",
    async () => {
      const { server, gets } = endingAtOnce(() => "retry: 0\n\n");
      const losses: LossReason[] = [];
      const reconnect = { initialDelayMs: 1, maxDelayMs: 5, growFactor: 2, maxRetries: 3, maxEmptyStreams: 3 };
      const { t, c } = await session(server.url, reconnect, (inner) => new TappedTransport(inner, (reason) => losses.push(reason)));
      await c.until(() => losses.length > 0, "the push-stream-failed loss");
      expect(losses).toEqual(["push-stream-failed"]);
      expect(t.getStreamState).toBe("failed");
      expect(gets()).toBe(3);
      const error = c.errors.at(-1);
      expect(AgentdError.isInstance(error) && error.code).toBe("E_CONNECTION_CLOSED");
      expect(error?.message).toContain("stream ended 3 times in a row without sending anything");
    },
    T,
  );
});
