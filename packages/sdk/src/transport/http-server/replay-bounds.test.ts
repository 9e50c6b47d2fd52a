/**
 * Replay bounded in bytes: what a client that went away missed is replayed within the bounds; an answer
 * that is no longer held is answered with an error on resumption (never silence); an answer delivered to
 * a connected client does not stay resident when it is large, nor once newer streams were delivered.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { callTool, createResponder, openSession, post, SseReader } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer, type StreamableHttpServerOptions } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(limits: NonNullable<StreamableHttpServerOptions["limits"]>) {
  const responder = createResponder();
  const server = await createStreamableHttpServer({ onsession: responder.onsession, limits });
  servers.push(server);
  const s = await openSession(server.url);
  const resume = (lastEventId: string) =>
    fetch(server.url, { headers: { ...s.headers, accept: "text/event-stream", "last-event-id": lastEventId } });
  return { server, url: server.url, responder, s, resume };
}

async function untilStreams(server: StreamableHttpServer, n: number): Promise<void> {
  while (server.stats().streams !== n) await new Promise((r) => setImmediate(r));
}

/** Start a held `slow` call, read its priming event, then break the connection. Returns the priming id. */
async function callThenLeave(ctx: Awaited<ReturnType<typeof start>>, id: number, text: string): Promise<string> {
  const reader = new SseReader(await post(ctx.url, callTool(id, "slow", text), ctx.s.headers));
  const priming = await reader.next();
  await ctx.responder.heldCount(1);
  await reader.cancel();
  await untilStreams(ctx.server, 0);
  ctx.responder.release();
  return priming!.id!;
}

describe("replay bounded in bytes", () => {
  test("an answer within the bounds, sent while the client was away, is replayed on resumption", async () => {
    const ctx = await start({ eventStoreBytes: 64 * 1024 });
    const primingId = await callThenLeave(ctx, 1, "y".repeat(10_000));
    const res = await ctx.resume(primingId);
    expect(res.status).toBe(200);
    const m = await new SseReader(res).nextMessage();
    expect(m?.message).toMatchObject({ id: 1, result: { content: [{ text: "y".repeat(10_000) }] } });
  });

  test("an answer larger than the per-session bound is not kept: the resumption gets an error for that request", async () => {
    const ctx = await start({ eventStoreBytes: 4096 });
    const primingId = await callThenLeave(ctx, 7, "z".repeat(10_000));
    const res = await ctx.resume(primingId);
    expect(res.status).toBe(200);
    const m = await new SseReader(res).nextMessage();
    expect(m?.message).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32000 } });
    expect(m?.message.error.message).toContain("send the request again");
  });

  test("an answer evicted by the server-wide bound is answered the same way", async () => {
    const ctx = await start({ eventStoreBytes: 64 * 1024, eventStoreTotalBytes: 20_000 });
    const first = await callThenLeave(ctx, 1, "a".repeat(12_000));
    await callThenLeave(ctx, 2, "b".repeat(12_000)); // pushes the first answer out of the 20 kB budget
    const m = await new SseReader(await ctx.resume(first)).nextMessage();
    expect(m?.message).toMatchObject({ id: 1, error: { code: -32000 } });
  });

  test("a large answer delivered to a connected client leaves the store; a small one stays replayable", async () => {
    const ctx = await start({});
    const big = new SseReader(await post(ctx.url, callTool(1, "echo", "q".repeat(200_000)), ctx.s.headers));
    const bigPriming = await big.next();
    expect((await big.nextMessage())?.message).toMatchObject({ id: 1 });
    const small = new SseReader(await post(ctx.url, callTool(2, "echo", "small"), ctx.s.headers));
    const smallPriming = await small.next();
    expect((await small.nextMessage())?.message).toMatchObject({ id: 2 });
    // A client that resumes anyway gets the small answer again, and for the large one a clear error.
    const again = await new SseReader(await ctx.resume(smallPriming!.id!)).nextMessage();
    expect(again?.message).toMatchObject({ id: 2, result: { content: [{ text: "small" }] } });
    const gone = await new SseReader(await ctx.resume(bigPriming!.id!)).nextMessage();
    expect(gone?.message).toMatchObject({ id: 1, error: { code: -32000 } });
  });

  test("a delivered answer stays replayable among the session's last 8 delivered streams; an older one gets the error answer", async () => {
    const ctx = await start({});
    const primings: string[] = [];
    for (let id = 1; id <= 9; id++) {
      const reader = new SseReader(await post(ctx.url, callTool(id, "echo", `t${id}`), ctx.s.headers));
      primings.push((await reader.next())!.id!);
      expect((await reader.nextMessage())?.message).toMatchObject({ id });
    }
    const oldest = await new SseReader(await ctx.resume(primings[0]!)).nextMessage();
    expect(oldest?.message).toMatchObject({ id: 1, error: { code: -32000 } });
    const second = await new SseReader(await ctx.resume(primings[1]!)).nextMessage();
    expect(second?.message).toMatchObject({ id: 2, result: { content: [{ text: "t2" }] } });
    const latest = await new SseReader(await ctx.resume(primings[8]!)).nextMessage();
    expect(latest?.message).toMatchObject({ id: 9, result: { content: [{ text: "t9" }] } });
  });

  test("a resumption after the client got the answer has nothing to send: 204", async () => {
    const ctx = await start({});
    const big = new SseReader(await post(ctx.url, callTool(1, "echo", "q".repeat(200_000)), ctx.s.headers));
    await big.next();
    const answer = await big.nextMessage();
    expect((await ctx.resume(answer!.id!)).status).toBe(204);
  });
});
