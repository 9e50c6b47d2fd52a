/**
 * Proof of the wording of -32602: the message a peer gets for bad params says "Invalid params for
 * <method>" once, then the field. (Found by the fuzz storm: the codec's message already carries that
 * prefix and `inbound-requests.ts` adds it again.)
 */
import { afterEach, expect, test } from "bun:test";
import { MemoryTransport } from "../transport/memory.ts";
import { McpServer } from "./server/server.ts";

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test("a -32602 message names the method once", async () => {
  server = new McpServer({ name: "s", version: "0" });
  server.tool({ name: "t" }, () => ({ content: [] }));
  const [peer, end] = MemoryTransport.createPair();
  await server.connect(end);
  const replies = new Map<unknown, { error?: { code: number; message: string } }>();
  const waiters = new Map<unknown, () => void>();
  peer.onmessage = (m) => {
    const reply = m as { id: unknown; error?: { code: number; message: string } };
    replies.set(reply.id, reply);
    waiters.get(reply.id)?.();
  };
  await peer.start();
  const ask = async (id: string, method: string, params: Record<string, unknown>) => {
    const arrived = new Promise<void>((resolve) => waiters.set(id, resolve));
    await peer.send({ jsonrpc: "2.0", id, method, params });
    await arrived;
    return replies.get(id)!;
  };
  await ask("init", "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "0" } });
  const bad = await ask("bad", "tools/call", { name: 5 });
  expect(bad.error?.code).toBe(-32602);
  expect(bad.error?.message).toBe("Invalid params for tools/call: params.name: Invalid type: Expected string but received 5");
});
