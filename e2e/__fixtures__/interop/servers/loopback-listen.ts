/**
 * Preloaded (`bun --preload`) into a third-party HTTP server under test: every `node:http` server binds
 * 127.0.0.1 on an ephemeral port whatever it asked for (server-everything binds every interface and has no
 * host option; mcp-framework turns port 0 into 8080), and once listening prints `interop-listening PORT` on
 * stderr, so the test learns where it is.
 */
import { Server } from "node:http";
import type { AddressInfo } from "node:net";

const listen = Server.prototype.listen as (this: Server, ...args: unknown[]) => Server;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  this.once("listening", () => process.stderr.write(`interop-listening ${(this.address() as AddressInfo).port}\n`));
  const callback = args.find((a) => typeof a === "function");
  return listen.call(this, 0, "127.0.0.1", ...(callback ? [callback] : []));
} as typeof Server.prototype.listen;
