/**
 * `createStreamableHttpServer`: the MCP Streamable HTTP transport, server side (protocol 2025-11-25, also
 * 2025-06-18 and 2025-03-26), hardened: loopback by default, TLS and auth required elsewhere, Origin and Host
 * validation, bearer and mutual-TLS authentication, sessions bound to their principal, and limits.
 *
 * Each session gets its own `Transport`, handed to `onsession`, where the caller connects an MCP server.
 */
import { type AdapterConn, type HttpListener, idleTimeoutFor, listen, readsClientCerts, runtimeAdapter } from "./adapter/index.ts";
import { createMcpHttpHandler, type McpHttpHandler } from "./handler.ts";
import type { MtlsFront } from "./mtls-front.ts";
import type { ResolvedServerConfig, StreamableHttpServerOptions } from "./options.ts";
import { hostForUrl } from "./origin-check.ts";
import { jsonRpcHttpError } from "./responses.ts";
import { loadServerConfig } from "./server-config.ts";

/** How long closing waits for responses still being written before it cuts the connections. */
const CLOSE_FLUSH_MS = 2000;

/** A running Streamable HTTP server. */
export interface StreamableHttpServer {
  /** The MCP endpoint URL, e.g. `http://127.0.0.1:41234/mcp`. */
  url: URL;
  /** The bound port (useful with port 0). */
  port: number;
  /**
   * End every session (each session's `onclose` fires), let responses still being written finish (up to 2 s),
   * then stop listening and close connections.
   */
  close(): Promise<void>;
  /** Live sessions and open SSE streams. */
  stats(): { sessions: number; streams: number };
}

/**
 * Start a Streamable HTTP server. Throws `AgentdError("E_CONFIG_INVALID")` for unsafe or malformed options
 * (e.g. a non-loopback `hostname` without TLS and auth).
 */
export async function createStreamableHttpServer(options: StreamableHttpServerOptions): Promise<StreamableHttpServer> {
  const config = await loadServerConfig(options);
  let handler: McpHttpHandler | undefined;
  let front: MtlsFront | undefined;
  const proxy = config.proxy;

  const dispatch = (req: Request, conn: AdapterConn, path?: string) => {
    if (!handler) return Promise.resolve(jsonRpcHttpError(503, -32000, "Service Unavailable: starting"));
    if (front) conn.tlsPrincipal = front.principalFor(conn.remote());
    else if (proxy) {
      // Believed from a configured proxy's address only; a configured publicUrl wins over a forwarded origin.
      const facts = proxy.factsOf(req.headers, conn.remote()?.address);
      if (facts.origin && !config.publicUrl) conn.publicOrigin = facts.origin;
      if (facts.clientCert) conn.tlsPrincipal = facts.clientCert;
      if (facts.malformed) conn.malformedForwarding = facts.malformed;
    }
    return handler.handle(req, conn, path);
  };

  const adapter = config.adapter ?? runtimeAdapter();
  const bound = await bind(config, adapter, dispatch);
  const { listener, publicPort } = bound;
  front = bound.front;

  const scheme = config.tls ? "https" : "http";
  const url = new URL(`${scheme}://${hostForUrl(config.hostname)}:${publicPort}${config.path}`);
  const h = createMcpHttpHandler(config, url, publicPort);
  handler = h;
  config.logger.info("http.listen", {
    url: url.href,
    tls: !!config.tls,
    mtls: config.mtls,
    adapter,
    bearer: config.bearerTokens.length > 0,
    behindProxy: proxy ? true : undefined,
    forwardedClientCert: proxy?.forwardedClientCert,
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    port: publicPort,
    stats: () => h.stats(),
    close() {
      closing ??= (async () => {
        h.close();
        // Responses being written (a final answer on a stream that just ended, an A2A reply) go out before
        // the connections are cut, for a bounded time: a stream nobody ends must not hold the close.
        const until = Date.now() + CLOSE_FLUSH_MS;
        while (listener.pending() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
        await front?.close();
        await listener.stop();
      })();
      return closing;
    },
  };
}

/** Where the server listens: the runtime adapter's listener, behind a node:tls front when Bun must see client certificates. */
async function bind(
  config: ResolvedServerConfig,
  adapter: ReturnType<typeof runtimeAdapter>,
  dispatch: (req: Request, conn: AdapterConn, path?: string) => Promise<Response>,
): Promise<{ listener: HttpListener; front?: MtlsFront; publicPort: number }> {
  const idleTimeout = idleTimeoutFor(config.limits.keepAliveMs);
  const maxRequestBodySize = config.limits.maxBodyBytes + 64 * 1024;
  const headersTimeoutMs = config.limits.requestBodyTimeoutMs;
  const endpointPath = config.path;
  if (config.mtls && config.tls?.ca && !readsClientCerts(adapter)) {
    // Bun cannot show the client certificate to the handler: a node:tls front terminates TLS instead.
    const listener = await listen(
      adapter,
      { hostname: "127.0.0.1", port: 0, idleTimeout, maxRequestBodySize, headersTimeoutMs, endpointPath },
      dispatch,
    );
    try {
      // Loaded only here: `node:tls` and `node:net` cost memory a server without mutual TLS never uses.
      const { startMtlsFront } = await import("./mtls-front.ts");
      const front = await startMtlsFront({
        hostname: config.hostname,
        port: config.port,
        cert: config.tls.cert,
        key: config.tls.key,
        ca: config.tls.ca,
        backendPort: listener.port,
        logger: config.logger,
      });
      return { listener, front, publicPort: front.port };
    } catch (e) {
      await listener.stop();
      throw e;
    }
  }
  // Under Node, node:https reads the verified client certificate itself: no front.
  const tls = config.tls && { ...config.tls, requestCert: config.mtls };
  const listener = await listen(
    adapter,
    { hostname: config.hostname, port: config.port, tls, idleTimeout, maxRequestBodySize, headersTimeoutMs, endpointPath },
    dispatch,
  );
  return { listener, publicPort: listener.port };
}
