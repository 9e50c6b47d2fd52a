/**
 * The Node adapter: binds `node:http` (or `node:https`) and bridges each `IncomingMessage` to a web-standard
 * `Request` and the core's `Response` back to the `ServerResponse`.
 *
 * - The request body streams: the socket is paused while the core has not read what arrived (the core's
 *   bounded reader decides 413 and 408), and a response sent before the body was read closes the connection.
 * - The response body streams: a write the socket does not take at once waits for `drain`, so a peer that
 *   stops reading pushes back to the SSE writer (which cuts the stream past `maxBufferedBytes`).
 * - A peer that leaves aborts the request's signal and cancels the response body.
 * - Under mutual TLS the verified client certificate is read from the TLS socket, once per connection.
 * - Slow peers: the request head must arrive within `headersTimeoutMs`, the body within the core's deadline,
 *   and a connection quiet for `idleTimeout` seconds is closed (lifted by `holdOpen` while an answer is awaited).
 */
import type * as http from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { nodeHttp, nodeHttps } from "../../../_internal/node-builtins.ts";
import { certificateSubject, formatDistinguishedName } from "../distinguished-name.ts";
import type { AdapterConn, AdapterHandler, HttpListener, ListenOptions } from "./types.ts";

/** How often Node checks the head and request deadlines (its default, 30 s, would let a slow head linger). */
const CHECK_INTERVAL_MS = 1000;

/** Bind `node:http` / `node:https` with `handle` as the request handler. Resolves once it listens. */
export async function listenNode(o: ListenOptions, handle: AdapterHandler): Promise<HttpListener> {
  const headersTimeout = o.headersTimeoutMs ?? 10_000;
  const serverOptions: http.ServerOptions = {
    // The core bounds the body itself (its own deadline, its own 408); Node's whole-request timeout stays off.
    requestTimeout: 0,
    headersTimeout,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    keepAliveTimeout: 5000,
  };
  const mtls = o.tls?.requestCert === true;
  const server = o.tls
    ? nodeHttps().createServer({
        ...serverOptions,
        cert: o.tls.cert,
        key: o.tls.key,
        ca: o.tls.ca || undefined,
        requestCert: mtls,
        rejectUnauthorized: mtls,
        minVersion: "TLSv1.2",
      })
    : nodeHttp().createServer(serverOptions);
  // A quiet connection is closed (no 'timeout' listener on the server: Node destroys the socket).
  server.setTimeout(o.idleTimeout * 1000);
  const scheme = o.tls ? "https" : "http";
  const fallbackHost = o.hostname.includes(":") ? `[${o.hostname}]` : o.hostname;
  let pending = 0;

  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    pending++;
    res.once("close", () => pending--);
    const request = toRequest(req, res, scheme, fallbackHost);
    if (!request) {
      res.writeHead(400, { "content-type": "text/plain", connection: "close" }).end("Bad Request");
      return;
    }
    const conn = new NodeConn(req.socket, mtls);
    handle(request, conn)
      .then(
        (response) => writeResponse(req, res, response, o.idleTimeout * 1000),
        () => {
          if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
          res.end("Internal Server Error");
        },
      )
      .catch(() => res.destroy());
  });
  server.on("clientError", (_e, socket: Socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    hostname: o.hostname,
    port: typeof address === "object" && address ? address.port : o.port,
    readsClientCerts: mtls && !("Bun" in globalThis),
    pending: () => pending,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The web-standard request for `req`, or undefined when its head cannot make one (a malformed Host). */
function toRequest(req: http.IncomingMessage, res: http.ServerResponse, scheme: string, fallbackHost: string): Request | undefined {
  const target = req.url ?? "/";
  if (!target.startsWith("/")) return undefined;
  const host = req.headers.host ?? fallbackHost;
  // A Host that would move the URL's path or authority (`/`, `?`, `#`, `@`, backslash, spaces) makes no request.
  if (/[/?#@\\\s]/.test(host)) return undefined;
  const url = `${scheme}://${host}${target}`;
  if (!URL.canParse(url)) return undefined;
  const headers = new Headers();
  const raw = req.rawHeaders;
  try {
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  } catch {
    return undefined;
  }
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers };
  if (method !== "GET" && method !== "HEAD") {
    init.body = bodyOf(req);
    init.duplex = "half";
  }
  return new NodeRequest(url, init, res);
}

/**
 * A request whose abort signal is made only when the core asks for it (a slow answer, a stream taken after an
 * await): under Node an `AbortController` per request costs about a third of a quick request's time.
 */
class NodeRequest extends Request {
  #res: http.ServerResponse;
  #abort: AbortController | undefined;
  constructor(url: string, init: RequestInit, res: http.ServerResponse) {
    super(url, init);
    this.#res = res;
  }
  /** Aborts when the response closes before it finished: the peer went away (or the connection was cut). */
  override get signal(): AbortSignal {
    if (this.#abort) return this.#abort.signal;
    const abort = (this.#abort = new AbortController());
    const res = this.#res;
    if (res.destroyed) {
      if (!res.writableFinished) abort.abort();
    } else
      res.once("close", () => {
        if (!res.writableFinished) abort.abort();
      });
    return abort.signal;
  }
}

/** The request body as a byte stream that reads the socket only as fast as the core reads the stream. */
function bodyOf(req: http.IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on("data", (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => controller.close());
        req.once("error", (e) => controller.error(e));
        req.once("aborted", () => controller.error(new Error("the client went away")));
      },
      pull() {
        req.resume();
      },
      cancel() {
        // The core stopped reading (413, 408, a refusal): leave the rest unread; the response closes the connection.
        req.pause();
        req.removeAllListeners("data");
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk?.byteLength ?? 0 },
  );
}

/** Write `response` to `res`, streaming its body with back-pressure. */
async function writeResponse(req: http.IncomingMessage, res: http.ServerResponse, response: Response, idleMs: number): Promise<void> {
  if (res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  // A body the core did not read (refused early) would otherwise be read, or wait, before the next request.
  if (!req.complete) headers.connection = "close";
  const body = response.body;
  const streaming = headers["content-type"]?.toString().startsWith("text/event-stream") === true;
  if (!body || !streaming) {
    // A whole body (JSON, a refusal, a route's text) goes out in one write with its length, not chunked.
    const bytes = body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (bytes) headers["content-length"] = String(bytes.byteLength);
    if (!res.destroyed) res.writeHead(response.status, response.statusText || undefined, headers).end(bytes);
    return;
  }
  res.writeHead(response.status, response.statusText || undefined, headers);
  // An event stream may stay quiet for a while: send the head now rather than with the first event. Its
  // keep-alive comments keep it moving and a peer that stops reading is cut by the writer, so the idle
  // timeout is lifted for its life (Bun's node:http does not count writes as activity).
  const socket = res.socket;
  socket?.setTimeout(0);
  res.flushHeaders();
  const reader = body.getReader();
  const gone = () => void reader.cancel().catch(() => {});
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await drained(res);
    }
    res.end();
    if (idleMs > 0) socket?.setTimeout(idleMs);
  } catch {
    res.destroy();
  } finally {
    res.off("close", gone);
  }
}

/** Resolves when `res` drains or closes (a peer that reads again, or one that left). */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** The verified client certificate subject of each TLS connection, read once. */
const subjects = new WeakMap<Socket, string>();

/** The connection facts of one request, read from its socket. */
class NodeConn implements AdapterConn {
  tlsPrincipal: string | undefined;
  constructor(
    private readonly socket: Socket,
    mtls: boolean,
  ) {
    if (mtls) this.tlsPrincipal = subjectOf(socket as TLSSocket) || undefined;
  }
  holdOpen(): void {
    this.socket.setTimeout(0);
  }
  remote(): { address: string; port: number } | null {
    const address = this.socket.remoteAddress;
    return address === undefined ? null : { address, port: this.socket.remotePort ?? 0 };
  }
}

/** The canonical subject of the socket's verified client certificate; "" when there is none or it cannot be read. */
function subjectOf(socket: TLSSocket): string {
  const known = subjects.get(socket);
  if (known !== undefined) return known;
  let subject = "";
  if (socket.authorized) {
    try {
      const raw = socket.getPeerCertificate()?.raw;
      if (raw) subject = formatDistinguishedName(certificateSubject(new Uint8Array(raw)));
    } catch {
      subject = "";
    }
  }
  subjects.set(socket, subject);
  return subject;
}
