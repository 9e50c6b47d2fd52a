/**
 * The gateways' loopback server under Bun: `Bun.serve`, each request's body read, answered through a sink
 * (exchange.ts) that builds a `Response`: whole at once, or with a pull-driven stream for pieces.
 *
 * Timeouts match the node:http server's: none while a request is handled (a stall lasts until the client
 * gives up, a scripted latency may exceed any idle limit), `KEEP_ALIVE_SECONDS` once a connection is idle.
 * `server.timeout(request, s)` holds for the connection, so it is lifted per request and set back when the
 * response ends. A dropped connection is a stream errored with no reason: Bun logs a reason, not its absence.
 */
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

const encoder = new TextEncoder();

/** A sink whose response is handed to `respond` once: whole (send) or as a stream (start). */
class BunSink implements Sink {
  #respond: (response: Response) => void;
  #idle: () => void;
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  /** Resolves the pending write once Bun pulls again (the previous piece went to the socket). */
  #pulled: (() => void) | undefined;
  #finish!: () => void;
  #done = false;
  headersSent = false;
  readonly whenClosed = new Promise<void>((resolve) => (this.#finish = resolve));

  constructor(respond: (response: Response) => void, idle: () => void) {
    this.#respond = respond;
    this.#idle = idle;
  }

  get closed(): boolean {
    return this.#done;
  }

  send(status: number, headers: Record<string, string>, body: string): void {
    if (this.#done) return;
    this.headersSent = true;
    this.#idle();
    this.#respond(new Response(body, { status, headers }));
    this.close();
  }

  start(status: number, headers: Record<string, string>): void {
    if (this.#done) return;
    this.headersSent = true;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: () => this.#release(),
        cancel: () => this.close(),
      },
      { highWaterMark: 0 },
    );
    // Bun sets the transfer encoding of a streamed body itself (chunked): a scripted content-length would lie.
    const { "content-length": _length, ...rest } = headers;
    this.#respond(new Response(stream, { status, headers: rest }));
  }

  write(chunk: string): Promise<void> {
    if (this.#done || this.#controller === undefined) return Promise.resolve();
    this.#release();
    const written = new Promise<void>((resolve) => (this.#pulled = resolve));
    this.#controller.enqueue(encoder.encode(chunk));
    return written;
  }

  end(): void {
    if (this.#done) return;
    this.#idle();
    this.#controller?.close();
    this.close();
  }

  destroy(): void {
    if (this.#done) return;
    const controller = this.#controller;
    this.close();
    // Errored with no reason: Bun resets the connection without logging (a reason would be printed). A piece
    // Bun has pulled reaches the socket in the same turn of the event loop, so the reset waits for the next.
    if (controller !== undefined) setImmediate(() => controller.error(undefined));
    else this.#respond(new Response(new ReadableStream({ start: (stream) => stream.error(undefined) })));
  }

  /** The connection is done with (ended, dropped, client gone, or the gateway closing). */
  close(): void {
    if (this.#done) return;
    this.#done = true;
    this.#release();
    this.#finish();
  }

  #release(): void {
    const pulled = this.#pulled;
    this.#pulled = undefined;
    pulled?.();
  }
}

async function readExchange(request: Request): Promise<Exchange> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { method: request.method, path: decodePath(url.pathname), query: url.searchParams, headers, body: await request.text() };
}

/** Listen with `Bun.serve` on 127.0.0.1 on an ephemeral port. `handler` errors become a plain 500. */
export function listenBun(handler: ExchangeHandler): LoopbackServer {
  const open = new Set<BunSink>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: KEEP_ALIVE_SECONDS,
    // Bun answers 413 itself above this.
    maxRequestBodySize: MAX_BODY_BYTES,
    fetch(request, srv) {
      srv.timeout(request, 0);
      return new Promise<Response>((respond) => {
        const sink = new BunSink(respond, () => srv.timeout(request, KEEP_ALIVE_SECONDS));
        open.add(sink);
        void sink.whenClosed.then(() => open.delete(sink));
        request.signal.addEventListener("abort", () => sink.close(), { once: true });
        readExchange(request)
          .then((exchange) => handler(exchange, sink))
          .catch((error: unknown) => {
            if (!sink.closed && !sink.headersSent) sink.send(500, { "content-type": "text/plain" }, failureText(error));
            else sink.destroy();
          });
      });
    },
  });
  const port = server.port;
  if (port === undefined) throw new Error("fake gateway: no TCP port after Bun.serve");
  let closing: Promise<void> | undefined;
  return {
    port,
    close() {
      closing ??= (async () => {
        // Stalled handlers wait on whenClosed: settle them as the connections go.
        for (const sink of open) sink.destroy();
        await server.stop(true);
      })();
      return closing;
    },
  };
}
