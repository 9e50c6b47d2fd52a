/**
 * Bun preload for tests: forces every `listen()` of `node:http` and `node:net` servers onto 127.0.0.1.
 *
 * Some peers (e.g. `@modelcontextprotocol/server-everything` in `streamableHttp` mode) take only a port and
 * bind every interface; tests must never listen beyond loopback. Run them as
 * `bun --preload <this file> <entry>`. Once bound, the preload prints one line to stderr,
 * `[bind-loopback] {"address":"127.0.0.1","port":N}`, so the test can check the bound address.
 */
import http from "node:http";
import net from "node:net";

const HOST = "127.0.0.1";

type Listen = (...args: unknown[]) => unknown;

/** Rewrite listen() arguments so the host is always loopback, whatever form the caller used. */
function forceLoopback(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (typeof first === "object" && first !== null) return [{ ...(first as object), host: HOST }, ...rest];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    // listen(port, [host], [backlog], [callback]): drop a caller-given host, keep backlog/callback.
    const tail = typeof rest[0] === "string" ? rest.slice(1) : rest;
    return [Number(first), HOST, ...tail];
  }
  // listen(callback) or listen(): port 0 on loopback.
  return [0, HOST, ...args];
}

function patch(proto: { listen: Listen }): void {
  const original = proto.listen;
  proto.listen = function (this: net.Server, ...args: unknown[]) {
    this.once("listening", () => {
      process.stderr.write(`[bind-loopback] ${JSON.stringify(this.address())}\n`);
    });
    return original.apply(this, forceLoopback(args));
  };
}

patch(http.Server.prototype as unknown as { listen: Listen });
patch(net.Server.prototype as unknown as { listen: Listen });
