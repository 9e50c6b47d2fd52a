/**
 * The one runtime-specific file of the gateways: a loopback HTTP server (node:http, which Bun and Node
 * both run) that hands each request, body read, to a handler with a small response sink able to do what
 * a fault needs: flush headers without a body, write in pieces, and drop the connection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** A request with its body read. */
export interface Exchange {
  method: string;
  /** Path without the query string, percent-decoded. */
  path: string;
  query: URLSearchParams;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/** Where a handler writes its response. */
export interface Sink {
  /** A whole response at once. */
  send(status: number, headers: Record<string, string>, body: string): void;
  /** Status and headers now, body to follow. */
  start(status: number, headers: Record<string, string>): void;
  /** One piece of the body; resolves once handed to the socket (or at once when the client is gone). */
  write(chunk: string): Promise<void>;
  end(): void;
  /** Drop the connection without finishing the response. */
  destroy(): void;
  /** True once the client went away or the response ended. */
  readonly closed: boolean;
  /** Resolves when the connection closes (client abort, drop, or gateway close). */
  readonly whenClosed: Promise<void>;
}

/** A listening loopback server. */
export interface LoopbackServer {
  port: number;
  /** Stop accepting, drop every open connection, resolve when closed. */
  close(): Promise<void>;
}

/** Request bodies above this are refused with 413: a test never needs more, a bug might send it. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

function sinkFor(response: ServerResponse): Sink {
  let closed = false;
  const whenClosed = new Promise<void>((resolve) => {
    response.on("close", () => {
      closed = true;
      resolve();
    });
  });
  return {
    get closed() {
      return closed || response.writableEnded;
    },
    whenClosed,
    send(status, headers, body) {
      if (closed) return;
      response.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(body)) });
      response.end(body);
    },
    start(status, headers) {
      if (closed) return;
      response.writeHead(status, headers);
      response.flushHeaders();
    },
    write(chunk) {
      if (closed) return Promise.resolve();
      return new Promise((resolve) => {
        response.write(chunk, () => resolve());
        // A write on a socket that closes meanwhile never calls back.
        void whenClosed.then(resolve);
      });
    },
    end() {
      if (!closed) response.end();
    },
    destroy() {
      response.socket?.destroy();
      response.destroy();
    },
  };
}

function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

async function readExchange(request: IncomingMessage): Promise<Exchange | "too-large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return "too-large";
    chunks.push(chunk as Buffer);
  }
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { method: request.method ?? "GET", path: decodePath(url.pathname), query: url.searchParams, headers, body: Buffer.concat(chunks).toString("utf8") };
}

/** Listen on 127.0.0.1 on an ephemeral port. `handler` errors become a plain 500. */
export async function listenLoopback(handler: (exchange: Exchange, sink: Sink) => Promise<void>): Promise<LoopbackServer> {
  const server = createServer((request, response) => {
    const sink = sinkFor(response);
    readExchange(request)
      .then((exchange) => {
        if (exchange === "too-large") return sink.send(413, { "content-type": "text/plain" }, "request body too large\n");
        return handler(exchange, sink);
      })
      .catch((error: unknown) => {
        if (!sink.closed && !response.headersSent) sink.send(500, { "content-type": "text/plain" }, `fake gateway failure: ${String(error)}\n`);
        else sink.destroy();
      });
  });
  // Stalls must last until the client gives up, so no server-side timeouts.
  server.requestTimeout = 0;
  // An idle keep-alive connection is kept longer than any client's pause between turns (a tool call on a
  // loaded machine can take seconds): closing it at 1 s raced clients reusing it, whose retried request
  // then met the script's next turn. `close()` still ends every connection at once.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("fake gateway: no TCP address after listen");
  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
