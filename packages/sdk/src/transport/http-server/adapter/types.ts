/**
 * What the server core asks of a runtime adapter: bind a socket, turn each HTTP request into a web-standard
 * `Request`, hand it to the core with the connection facts, and write the `Response` back. Everything
 * hardened (sessions, limits, authentication, replay, SSE writing, mounts) lives in the core; an adapter only
 * bridges sockets and streams.
 */
import type { HttpRequestConn } from "../context.ts";

/**
 * The socket layers there are: `Bun.serve`, or `node:http` / `node:https` (Node, and Bun's implementation of them).
 */
export type HttpAdapterName = "bun" | "node";

/** What an adapter binds. */
export interface ListenOptions {
  hostname: string;
  port: number;
  /** TLS material; with `requestCert` the client must present a certificate signed by `ca`. */
  tls?: { cert: string; key: string; ca?: string; requestCert?: boolean } | undefined;
  /** Seconds a connection may stay quiet (0-255; 0 disables). */
  idleTimeout: number;
  /** A backstop above the core's own bounded body reader. */
  maxRequestBodySize: number;
  /** Milliseconds the request head may take to arrive (a slowloris sending headers a byte at a time). */
  headersTimeoutMs?: number;
  /**
   * The MCP endpoint's path, which an adapter may match natively: a request it matched there is handed over
   * with that path, so the core need not read the URL. Any other request is handed over without one.
   */
  endpointPath?: string;
}

/** The connection facts an adapter gives the core, plus the peer address (behind-proxy trust, the mTLS front). */
export interface AdapterConn extends HttpRequestConn {
  remote(): { address: string; port: number } | null;
}

/** A bound server. */
export interface HttpListener {
  hostname: string;
  port: number;
  /** Whether the adapter itself reads verified client certificates (`conn.tlsPrincipal`) under mutual TLS. */
  readsClientCerts: boolean;
  /** Requests whose response (its whole body, a stream's too) has not been sent yet. */
  pending(): number;
  stop(): Promise<void>;
}

/**
 * The core's request handler, as an adapter calls it; `path` when the adapter matched the request to
 * {@link ListenOptions.endpointPath} itself (the core reads it from the URL otherwise).
 */
export type AdapterHandler = (req: Request, conn: AdapterConn, path?: string) => Promise<Response>;
