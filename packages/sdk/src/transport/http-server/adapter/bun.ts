/**
 * The Bun adapter: binds `Bun.serve` and hands each request to the web-standard handler.
 *
 * `idleTimeout` is set on purpose: Bun's default (10 s) would cut quiet SSE streams; the keep-alive interval
 * stays well below the value chosen here. JSON-mode requests that wait for a slow answer also lift the
 * timeout for their connection (`holdOpen`); Bun 1.4 does not cut a POST whose body was read, but that is
 * not documented behaviour to rely on.
 */
import { AgentdError } from "../../../wire/errors.ts";
import type { AdapterConn, AdapterHandler, HttpListener, ListenOptions } from "./types.ts";

/**
 * A path `Bun.serve`'s router matches literally (no `:param`, `*` or percent-escape in it): only then does
 * its exact match mean what the core's own path reading means.
 */
const LITERAL_PATH = /^(\/[A-Za-z0-9._~-]+)+$/;

/** The one-line error for asking for the Bun adapter outside Bun. */
export const NEEDS_BUN =
  'the "bun" HTTP adapter needs the Bun runtime (this is Node): leave the adapter option out to serve with node:http';

/**
 * Bind `Bun.serve` with `handle` as its fetch handler. Throws `E_USAGE` outside Bun. Mutual TLS is not
 * offered here (`Bun.serve` does not show the client certificate): the server puts a node:tls front before it.
 */
export function listenBun(o: ListenOptions, handle: AdapterHandler): HttpListener {
  if (typeof Bun === "undefined") throw new AgentdError("E_USAGE", NEEDS_BUN);
  const tls = o.tls ? { cert: o.tls.cert, key: o.tls.key, ca: o.tls.ca || undefined } : undefined;
  // The endpoint matched by Bun's router: its requests reach the core with their path known, and the
  // request's URL string, which Bun builds on first read (~0.3 µs), is never made for them. The router
  // matches the exact path only (a query is ignored, as the core ignores it); whatever it does not match
  // — another path, or a spelling of this one the core would still read as it, e.g. `/./mcp` — goes to
  // `fetch`, where the core reads the path from the URL as before.
  const endpoint = o.endpointPath;
  const routes =
    endpoint !== undefined && LITERAL_PATH.test(endpoint)
      ? { [endpoint]: (req: Request, srv: Bun.Server<undefined>) => handle(req, new RequestConn(req, srv), endpoint) }
      : undefined;
  const server = Bun.serve({
    hostname: o.hostname,
    port: o.port,
    idleTimeout: o.idleTimeout,
    maxRequestBodySize: o.maxRequestBodySize,
    tls,
    ...(routes ? { routes } : {}),
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
    readsClientCerts: false,
    pending: () => server.pendingRequests,
    stop: () => server.stop(true),
  };
}

/** What a request needs of Bun's server: its methods on a prototype, not two closures made per request. */
class RequestConn implements AdapterConn {
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
