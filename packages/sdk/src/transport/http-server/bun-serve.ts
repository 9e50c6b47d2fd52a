/**
 * The Bun runtime adapter: binds `Bun.serve` and hands each request to the web-standard handler.
 *
 * `idleTimeout` is set on purpose: Bun's default (10 s) would cut quiet SSE streams; the keep-alive interval
 * stays well below the value chosen here. JSON-mode requests that wait for a slow answer also lift the
 * timeout for their connection (`holdOpen`); Bun 1.4 does not cut a POST whose body was read, but that is
 * not documented behaviour to rely on.
 */
import { AgentdError } from "../../wire/errors.ts";
import type { HttpRequestConn } from "./context.ts";

/** What the adapter binds. */
export interface BunListenOptions {
  hostname: string;
  port: number;
  tls?: { cert: string; key: string; ca?: string } | undefined;
  /** Seconds (0-255; 0 disables). */
  idleTimeout: number;
  /** A backstop above the handler's own bounded reader. */
  maxRequestBodySize: number;
}

/** The connection facts Bun can give, plus the peer address (used to match the mutual-TLS front). */
export interface BunConn extends HttpRequestConn {
  remote(): { address: string; port: number } | null;
}

/** A bound Bun server. */
export interface BunListener {
  hostname: string;
  port: number;
  /** Requests whose response (its whole body, a stream's too) has not been sent yet. */
  pending(): number;
  stop(): Promise<void>;
}

/** The one-line error for serving HTTP outside Bun (the server is built on Bun.serve and Bun's direct streams). */
export const NEEDS_BUN =
  "serving MCP over HTTP needs the Bun runtime (this is Node): run the program with Bun, or serve with the agentd CLI " +
  "(npx @agentd/cli serve --http HOST:PORT); serving over stdio works under Node";

/** Bind `Bun.serve` with `handle` as its fetch handler. Throws `E_USAGE` outside Bun. */
export function listenBun(o: BunListenOptions, handle: (req: Request, conn: BunConn) => Promise<Response>): BunListener {
  if (typeof Bun === "undefined") throw new AgentdError("E_USAGE", NEEDS_BUN);
  const server = Bun.serve({
    hostname: o.hostname,
    port: o.port,
    idleTimeout: o.idleTimeout,
    maxRequestBodySize: o.maxRequestBodySize,
    ...(o.tls ? { tls: o.tls } : {}),
    fetch(req, srv) {
      return handle(req, new RequestConn(req, srv));
    },
    error() {
      return new Response("Internal Server Error", { status: 500 });
    },
  });
  return {
    hostname: o.hostname,
    port: server.port ?? o.port,
    pending: () => server.pendingRequests,
    stop: () => server.stop(true),
  };
}

/** What a request needs of Bun's server: its methods on a prototype, not two closures made per request. */
class RequestConn implements BunConn {
  tlsPrincipal: string | undefined;
  constructor(
    private readonly req: Request,
    private readonly srv: Bun.Server<undefined>,
  ) {}
  holdOpen(): void {
    this.srv.timeout(this.req, 0);
  }
  remote(): { address: string; port: number } | null {
    return this.srv.requestIP(this.req);
  }
}

/** The idle timeout (seconds) to pair with a keep-alive interval: comfortably above it, within Bun's range. */
export const idleTimeoutFor = (keepAliveMs: number) => Math.min(255, Math.max(10, Math.ceil(keepAliveMs / 1000) * 2 + 5));
