import { afterEach, expect, test } from "bun:test";
import { type HostilePeer, startHostilePeer } from "@agentd/test-support/hostile-peer";
import { isSseTransportServer } from "./probe-2024-11-05-sse.ts";

let peer: HostilePeer | undefined;
afterEach(() => {
  peer?.stop();
  peer = undefined;
});

const probe = (url: string) => isSseTransportServer(fetch, new URL(url), new Headers(), new AbortController().signal, "old", 60_000);

test("an old server is recognised by its endpoint event", async () => {
  peer = startHostilePeer(() => new Response("event: endpoint\ndata: /messages\n\n", { headers: { "content-type": "text/event-stream" } }));
  expect(await probe(`${peer.url}/sse`)).toBe(true);
});

test("a stream that never completes an event is given up after 64 KiB, not read until the timeout", async () => {
  peer = startHostilePeer(() => ({ endless: true, contentType: "text/event-stream", unit: `: ${"p".repeat(1000)}\n` }));
  expect(await probe(`${peer.url}/sse`)).toBe(false);
  expect(await peer.cutOff).toBeLessThan(32 * 1024 * 1024);
});
