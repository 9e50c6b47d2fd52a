/**
 * Load on a real `agentd serve --http` process over loopback, bounded in count and time: 50 concurrent
 * sessions run `agent.run` against a fake gateway that answers at once, while misbehaving peers send an
 * oversized body (413), open more streams than a session may hold (429 / 409) and flood past the in-flight
 * limit (429). Every well-behaved session succeeds; every session started is ended. (The in-process proof
 * `packages/sdk/src/serve/serve-leak.proof.test.ts` checks memory and the server's own counters.)
 */
import { afterEach, describe, expect, test } from "bun:test";
import { DEFAULT_HTTP_LIMITS } from "@agentd/sdk/transport";
import {
  call,
  endSession,
  initializeRequest,
  openSession,
  post,
  request,
  SseReader,
  type RawSession,
} from "@agentd/test-support/raw-mcp-http";
import { gate, serveWorld } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe, type ServeProcess } from "./__fixtures__/serve/serve-process.ts";

const SESSIONS = 50;
let world: Awaited<ReturnType<typeof serveWorld>> | undefined;
afterEach(async () => {
  await stopAllServe();
  await world?.close();
  world = undefined;
}, 30_000);

/** A gateway whose model answers at once, except for instructions starting with HOLD, which wait for `held`. */
async function start(held: Promise<void>) {
  world = await serveWorld(
    [
      async (req) => {
        const instruction = req.messages.find((m) => m.role === "user")?.text ?? "";
        if (instruction.startsWith("HOLD")) await held;
        return { text: `done: ${instruction}` };
      },
    ],
    { onExhausted: "repeat-last" },
  );
  world.ws.writeConfig({});
  return startServe(["--http", "127.0.0.1:0", "--grace", "5s"], { env: world.env, cwd: world.ws.dir });
}

/** One well-behaved client: open, run, read status, end. */
async function goodSession(serve: ServeProcess, i: number): Promise<string> {
  const s = await openSession(serve.url);
  const { response } = await call(serve.url, s, 1, "tools/call", { name: "agent.run", arguments: { instruction: `task ${i}` } });
  const status = await call(serve.url, s, 2, "resources/read", { uri: "agent://status" });
  expect(JSON.parse(status.response.result.contents[0].text).runsStarted).toBeGreaterThan(0);
  expect(await endSession(serve.url, s)).toBe(204);
  return response.result.content[0].text as string;
}

const agentRun = (id: number, instruction: string) => request(id, "tools/call", { name: "agent.run", arguments: { instruction } });

describe("agentd serve --http under load with misbehaving peers", () => {
  test(`${SESSIONS} concurrent sessions succeed while one peer floods; every session ends`, async () => {
    const release = gate();
    const serve = await start(release.promise);
    const limits = DEFAULT_HTTP_LIMITS;

    // Peer A (2025-11-25): an oversized body, then more streams than a session may hold.
    const a = await openSession(serve.url);
    const huge = JSON.stringify(agentRun(1, "x".repeat(limits.maxBodyBytes + 1024)));
    const tooBig = await post(serve.url, huge, a.headers);
    expect(tooBig.status).toBe(413);
    await tooBig.body?.cancel();
    const streams = await Promise.all(
      Array.from({ length: limits.maxStreamsPerSession }, async (_, i) => {
        const res = await post(serve.url, agentRun(100 + i, `HOLD stream ${i}`), a.headers);
        expect(res.status).toBe(200);
        const reader = new SseReader(res);
        await reader.next(); // the priming event: the stream is open
        return reader;
      }),
    );
    const oneMore = await post(serve.url, agentRun(200, "HOLD one more"), a.headers);
    expect(oneMore.status).toBe(429);
    expect(await oneMore.text()).toContain("too many open streams");
    const get = await fetch(serve.url, { headers: { ...a.headers, accept: "text/event-stream" } });
    expect(get.status).toBe(429);
    await get.body?.cancel();

    // Peer B (2025-03-26, where batches exist): a batch past the in-flight limit is refused whole; a full
    // batch is taken, and then one more request is refused.
    const b = await openHandshakeSession(serve);
    const batch = (n: number, base: number) => Array.from({ length: n }, (_, i) => agentRun(base + i, `HOLD batch ${base + i}`));
    const flood = await post(serve.url, batch(limits.maxInFlightPerSession + 1, 1000), b.headers);
    expect(flood.status).toBe(429);
    expect(await flood.text()).toContain("in flight");
    const full = await post(serve.url, batch(limits.maxInFlightPerSession, 2000), b.headers);
    expect(full.status).toBe(200);
    const fullStream = new SseReader(full);
    const past = await post(serve.url, agentRun(3000, "HOLD past the limit"), b.headers);
    expect(past.status).toBe(429);
    await past.body?.cancel();

    // Meanwhile every well-behaved session gets its answer.
    const answers = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => goodSession(serve, i)));
    expect(answers).toEqual(Array.from({ length: SESSIONS }, (_, i) => `done: task ${i}`));

    // Let the held runs finish: each flooding request that was accepted is answered, none lost.
    release.open();
    const batchAnswers = new Set<number>();
    for (let m = await fullStream.nextMessage(); m; m = await fullStream.nextMessage()) batchAnswers.add(m.message.id as number);
    expect(batchAnswers.size).toBe(limits.maxInFlightPerSession);
    for (const [i, reader] of streams.entries()) expect((await reader.until(100 + i)).at(-1)!.message.result).toBeDefined();

    expect(await endSession(serve.url, a)).toBe(204);
    expect(await endSession(serve.url, b)).toBe(204);
    // Every session started was ended (stderr is read asynchronously: wait for the records, not for time).
    const count = (event: string) => serve.events().filter((e) => e.event === event).length;
    await serve.waitForEvent(() => count("http.session.start") === SESSIONS + 2 && count("http.session.end") === SESSIONS + 2);
    expect(serve.events().filter((e) => e.level === "error")).toEqual([]);
  }, 60_000);
});

/** A session negotiated at 2025-03-26, the revision that allows JSON-RPC batches. */
async function openHandshakeSession(serve: ServeProcess): Promise<RawSession> {
  const res = await post(serve.url, initializeRequest(0, "2025-03-26"));
  const sessionId = res.headers.get("mcp-session-id")!;
  const [init] = await new SseReader(res).until(0);
  expect(init!.message.result.protocolVersion).toBe("2025-03-26");
  const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-03-26" };
  expect((await post(serve.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(202);
  return { sessionId, headers, initializeResult: init!.message.result };
}
