/**
 * Test fixtures for the two ways a peer turns on its client: a body that never ends, and a redirect to
 * another origin. Real HTTP on 127.0.0.1, ephemeral ports.
 *
 * - `startHostilePeer(route)`: answers each request as `route` says — an ordinary `Response`, or an
 *   endless body (a head, then one unit repeated) produced only as fast as the client reads it and cut at
 *   `cap` bytes, so a test that fails still ends. `cutOff` resolves, with the bytes sent, once the client
 *   closed the connection of an endless body.
 * - `startRedirectPair()`: an origin that answers every request with a redirect to the same path on a second
 *   origin, which records what reaches it (it should be nothing) and answers 500.
 */

/** An endless answer: `head`, then `unit` again and again (until the cap). */
export interface EndlessBody {
  endless: true;
  contentType: string;
  head?: string;
  unit: string;
  status?: number;
}

/** What reached a peer. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A running hostile peer. */
export interface HostilePeer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /** Bytes of endless bodies sent so far. */
  sent(): number;
  /** Resolves with the bytes sent once a client closed an endless body before the cap. */
  cutOff: Promise<number>;
  stop(): void;
}

/** Default cap of one endless body: far past any limit under test, small enough to end a failing test. */
export const ENDLESS_CAP = 256 * 1024 * 1024;

async function record(req: Request, into: ReceivedRequest[]): Promise<void> {
  into.push({
    method: req.method,
    path: new URL(req.url).pathname,
    headers: Object.fromEntries(req.headers),
    body: await req.text(),
  });
}

/** Start a peer answering by `route`. */
export function startHostilePeer(
  route: (req: Request, url: URL) => EndlessBody | Response | Promise<EndlessBody | Response>,
  cap = ENDLESS_CAP,
): HostilePeer {
  const requests: ReceivedRequest[] = [];
  let sent = 0;
  let cut: (n: number) => void = () => {};
  const cutOff = new Promise<number>((resolve) => (cut = resolve));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      await record(req.clone(), requests);
      const answer = await route(req, new URL(req.url));
      if (answer instanceof Response) return answer;
      const unit = new TextEncoder().encode(answer.unit.repeat(Math.max(1, Math.floor(16_384 / answer.unit.length))));
      let first = answer.head === undefined ? undefined : new TextEncoder().encode(answer.head);
      let ended = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          if (first) {
            c.enqueue(first);
            first = undefined;
            return;
          }
          if (sent >= cap) {
            ended = true;
            c.close();
            return;
          }
          c.enqueue(unit);
          sent += unit.byteLength;
        },
        cancel() {
          if (!ended) cut(sent);
        },
      });
      return new Response(stream, { status: answer.status ?? 200, headers: { "content-type": answer.contentType } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, sent: () => sent, cutOff, stop: () => server.stop(true) };
}

/** A redirecting origin and the other origin it points to. */
export interface RedirectPair {
  /** The origin that redirects (`http://127.0.0.1:A`). */
  from: string;
  /** The origin redirected to (`http://127.0.0.1:B`), which records what reaches it. */
  to: string;
  /** What reached `to`. */
  received: ReceivedRequest[];
  stop(): void;
}

/** Start a pair: every request to `from` is answered `status` (307) to the same path and query on `to`. */
export function startRedirectPair(status = 307): RedirectPair {
  const received: ReceivedRequest[] = [];
  const target = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      await record(req, received);
      return new Response("recorded", { status: 500 });
    },
  });
  const to = `http://127.0.0.1:${target.port}`;
  const origin = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      return new Response(null, { status, headers: { location: `${to}${u.pathname}${u.search}` } });
    },
  });
  return {
    from: `http://127.0.0.1:${origin.port}`,
    to,
    received,
    stop: () => {
      origin.stop(true);
      target.stop(true);
    },
  };
}
