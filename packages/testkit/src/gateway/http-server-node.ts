/**
 * The gateways' loopback server under Node: node:http, each request's body read, answered through a sink
 * (exchange.ts). Under Bun, http-server-bun.ts serves instead.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  decodePath,
  type Exchange,
  type ExchangeHandler,
  failureText,
  KEEP_ALIVE_SECONDS,
  type LoopbackServer,
  MAX_BODY_BYTES,
  type Sink,
} from "./exchange.ts";

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
  return {
    method: request.method ?? "GET",
    path: decodePath(url.pathname),
    query: url.searchParams,
    headers,
    body: Buffer.concat(chunks).toString("utf8"),
  };
}

/** Listen with node:http on 127.0.0.1 on an ephemeral port. `handler` errors become a plain 500. */
export async function listenNode(handler: ExchangeHandler): Promise<LoopbackServer> {
  const server = createServer((request, response) => {
    const sink = sinkFor(response);
    readExchange(request)
      .then((exchange) => {
        if (exchange === "too-large") return sink.send(413, { "content-type": "text/plain" }, "request body too large\n");
        return handler(exchange, sink);
      })
      .catch((error: unknown) => {
        if (!sink.closed && !response.headersSent) sink.send(500, { "content-type": "text/plain" }, failureText(error));
        else sink.destroy();
      });
  });
  // Stalls must last until the client gives up, so no server-side timeouts.
  server.requestTimeout = 0;
  server.keepAliveTimeout = KEEP_ALIVE_SECONDS * 1000;
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
