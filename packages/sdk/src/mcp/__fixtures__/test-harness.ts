/**
 * Test harness (internal, for this folder's tests): servers and clients over memory pairs, closed after
 * each test.
 */
import { afterEach } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import { McpClient, type McpClientOptions } from "../client/client.ts";
import { McpServer, type McpServerOptions } from "../server/server.ts";
import { RawPeer, record } from "./test-peer.ts";

const closers: (() => Promise<void>)[] = [];

/** Register the after-each cleanup in the calling test file. */
export function useCleanup(): void {
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
  });
}

/** A server closed after the test. */
export function newServer(options: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: "srv", version: "1.0.0" }, options);
  closers.push(() => server.close());
  return server;
}

/** A client connected to `server`, its transport recorded. */
export async function connect(server: McpServer, options: McpClientOptions = {}) {
  const [a, b] = MemoryTransport.createPair();
  const rec = record(a);
  const session = await server.connect(b);
  const client = new McpClient({ name: "client", version: "0.1.0" }, options);
  closers.push(() => client.close());
  await client.connect(a);
  return { client, session, rec };
}

/** A raw client talking to `server`. */
export async function rawClient(server: McpServer) {
  const [a, b] = MemoryTransport.createPair();
  const session = await server.connect(b);
  const raw = await RawPeer.attach(a);
  closers.push(() => a.close());
  return { raw, session };
}

/** Run `fn` at cleanup. */
export function onCleanup(fn: () => Promise<void>): void {
  closers.push(fn);
}

/** Initialize params for raw clients. */
export const INIT = { capabilities: {}, clientInfo: { name: "raw", version: "0" } };
