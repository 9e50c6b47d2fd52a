/**
 * The gateways' loopback HTTP server: `Bun.serve` under Bun (Bun's `node:http` emulation costs a one-shot
 * run ~11 % of its CPU in connection tracking), `node:http` under Node (the testkit is also built for Node).
 * Both give the handler the same exchange and sink (exchange.ts).
 */
import { listenBun } from "./http-server-bun.ts";
import type { ExchangeHandler, LoopbackServer } from "./exchange.ts";

export type { Exchange, ExchangeHandler, LoopbackServer, Sink } from "./exchange.ts";

/** Listen on 127.0.0.1 on an ephemeral port. `handler` errors become a plain 500. */
export async function listenLoopback(handler: ExchangeHandler): Promise<LoopbackServer> {
  if (typeof Bun !== "undefined") return listenBun(handler);
  // Loaded only under Node: under Bun, importing node:http is start-up work the gateway does not need.
  const { listenNode } = await import("./http-server-node.ts");
  return listenNode(handler);
}
