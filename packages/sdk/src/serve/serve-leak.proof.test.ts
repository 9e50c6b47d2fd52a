/**
 * Nothing leaks when serving: the served agent on the Streamable HTTP server, in-process so the server's own
 * counters (`stats()`, the McpServer's live sessions) and the heap after GC can be read. Rounds of 50
 * concurrent sessions (initialize, `agent.run` with a progress token, subscribe, read, DELETE), sessions
 * left to idle expiry, and a long JSON-response-mode session: each returns to baseline.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createLogger, type LogRecord } from "../log.ts";
import type { RunEvent } from "../loop/events.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "../transport/http-server/index.ts";
import { createServedMcp, type ServedMcp, type ServedRunner } from "./served-mcp.ts";
import { call, endSession, openSession, post, request } from "@agentd/test-support/raw-mcp-http";

/** A runner that answers at once, after one progress-worthy event. */
const instant: ServedRunner = {
  async run(input, { runId, onEvent }) {
    const usage = { inputTokens: 3, outputTokens: 2, totalTokens: 5 };
    onEvent?.({ type: "model-end", runId: runId!, turn: 1, usage, finishReason: "stop", toolCalls: 0 } as RunEvent);
    return { text: `ok: ${input}`, usage, turns: 1, runId: runId!, stopReason: "final", toolCalls: 0 };
  },
};

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}, 30_000);

/** The served agent behind a Streamable HTTP server on 127.0.0.1:0, with session-end records counted. */
async function serve(options: Partial<StreamableHttpServerOptions> = {}) {
  const self: ServedMcp = createServedMcp({ runner: instant, capabilities: { serverNotifications: true } });
  const ended: LogRecord[] = [];
  const waiters = new Set<() => void>();
  const logger = createLogger(
    (r) => {
      if (r.event !== "http.session.end") return;
      ended.push(r);
      for (const w of [...waiters]) w();
    },
    { level: "info" },
  );
  const server = await createStreamableHttpServer({ onsession: (t) => self.server.connect(t).then(() => {}), logger, ...options });
  servers.push(server);
  const sessionsEnded = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => ended.length >= n && (waiters.delete(check), resolve());
      waiters.add(check);
      check();
    });
  return { self, server, url: server.url, ended, sessionsEnded };
}

/** One client's life: initialize, agent.run with progress, subscribe, read, then DELETE (or not). */
async function life(url: URL, i: number, end = true): Promise<void> {
  const s = await openSession(url);
  const run = await call(url, s, 1, "tools/call", { name: "agent.run", arguments: { instruction: `t${i}` }, _meta: { progressToken: i } });
  expect(run.response.result.content[0].text).toBe(`ok: t${i}`);
  expect(run.messages.some((m) => m.message.method === "notifications/progress")).toBe(true);
  await call(url, s, 2, "resources/subscribe", { uri: "agent://status" });
  await call(url, s, 3, "resources/read", { uri: "agent://status" });
  if (end) expect(await endSession(url, s)).toBe(204);
}

const round = (url: URL, n: number, base: number, end = true) => Promise.all(Array.from({ length: n }, (_, i) => life(url, base + i, end)));

/** Heap in use after a full collection, in bytes. */
function heapAfterGc(): number {
  Bun.gc(true);
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
}

const MiB = 1024 * 1024;

describe("serving leaks nothing", () => {
  test("rounds of 50 concurrent sessions ended with DELETE: counters and heap return to baseline", async () => {
    const { self, server, url } = await serve();
    await round(url, 50, 0); // warm-up: JIT, pools, first-use allocations
    expect(server.stats()).toEqual({ sessions: 0, streams: 0 });
    const baseline = heapAfterGc();
    const rssBefore = process.memoryUsage().rss;
    const ROUNDS = 8;
    for (let r = 1; r <= ROUNDS; r++) {
      await round(url, 50, r * 1000);
      expect(server.stats()).toEqual({ sessions: 0, streams: 0 });
      expect(self.server.sessions()).toHaveLength(0);
    }
    const growth = heapAfterGc() - baseline;
    // 400 sessions: even 8 KiB kept per session would show as >3 MiB.
    expect(growth).toBeLessThan(3 * MiB);
    // Run history is bounded (the registry keeps the last 100): state does not grow with traffic.
    expect(self.registry.status().runsSucceeded).toBe(50 * (ROUNDS + 1));
    expect(self.registry.has("run-unknown")).toBe(false);
    console.log(
      `serve-leak: ${50 * ROUNDS} sessions, heap growth ${(growth / MiB).toFixed(2)} MiB, rss ${(rssBefore / MiB).toFixed(0)} → ${(process.memoryUsage().rss / MiB).toFixed(0)} MiB`,
    );
  }, 60_000);

  test("sessions never ended by their clients expire: counters return to zero, the McpServer forgets them", async () => {
    const { self, server, url, ended, sessionsEnded } = await serve({ limits: { sessionIdleMs: 200 } });
    await round(url, 50, 0, false);
    expect(server.stats().sessions).toBeGreaterThan(0);
    await sessionsEnded(50);
    expect(ended.every((r) => r.reason === "idle")).toBe(true);
    expect(server.stats()).toEqual({ sessions: 0, streams: 0 });
    expect(self.server.sessions()).toHaveLength(0);
  }, 60_000);

  test("JSON response mode: a long session answers thousands of requests without per-request state left behind", async () => {
    const { self, server, url } = await serve({ responseMode: "json" });
    const s = await openJsonSession(url);
    const burst = async (from: number, n: number) => {
      for (let k = from; k < from + n; k += 20)
        await Promise.all(
          Array.from({ length: 20 }, async (_, j) => {
            const id = k + j;
            const res = await post(url, request(id, "tools/call", { name: "agent.run", arguments: { instruction: `j${id}` } }), s.headers);
            expect(((await res.json()) as { id: number }).id).toBe(id);
          }),
        );
    };
    await burst(0, 200);
    const baseline = heapAfterGc();
    await burst(200, 2000);
    const growth = heapAfterGc() - baseline;
    expect(growth).toBeLessThan(3 * MiB);
    expect(server.stats()).toEqual({ sessions: 1, streams: 0 });
    expect(self.server.sessions()).toHaveLength(1);
    expect(await endSession(url, s)).toBe(204);
    expect(server.stats()).toEqual({ sessions: 0, streams: 0 });
    console.log(`serve-leak (json mode): 2000 requests in one session, heap growth ${(growth / MiB).toFixed(2)} MiB`);
  }, 60_000);
});

/** initialize + initialized in JSON response mode (one JSON body per POST). */
async function openJsonSession(url: URL) {
  const res = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "leak", version: "0" } },
  });
  const sessionId = res.headers.get("mcp-session-id")!;
  const body = (await res.json()) as { result: { protocolVersion: string } };
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": body.result.protocolVersion };
  expect((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
  return { sessionId, headers, initializeResult: body.result };
}
