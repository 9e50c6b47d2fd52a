/**
 * The two loopback servers (Bun.serve under Bun, node:http under Node) behave alike: the same handler is
 * served by each here (Bun runs node:http too) and seen through fetch and a raw socket.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import type { ExchangeHandler, LoopbackServer, Sink } from "./exchange.ts";
import { listenLoopback } from "./http-server.ts";
import { listenBun } from "./http-server-bun.ts";
import { listenNode } from "./http-server-node.ts";

const open: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A handler whose behaviour the path picks; each sink is handed to `seen` for the test to watch. */
function handlerFor(seen: (sink: Sink) => void): ExchangeHandler {
  return async (exchange, sink) => {
    seen(sink);
    switch (exchange.path) {
      case "/echo":
        return sink.send(
          201,
          { "content-type": "application/json", "x-seen": exchange.headers["x-test"] ?? "" },
          JSON.stringify({ method: exchange.method, query: exchange.query.get("q"), body: exchange.body }),
        );
      case "/pieces": {
        sink.start(200, { "content-type": "text/event-stream" });
        for (const piece of ["data: one\n\n", "data: t", "wo\n\n"]) await sink.write(piece);
        return sink.end();
      }
      case "/stall":
        sink.start(200, { "content-type": "text/event-stream" });
        await sink.write("data: first\n\n");
        return sink.whenClosed;
      case "/drop":
        sink.start(200, { "content-type": "application/json", "content-length": "100" });
        await sink.write('{"half":');
        return sink.destroy();
      case "/throw":
        throw new Error("handler broke");
      default:
        return sink.send(404, {}, "no\n");
    }
  };
}

const SERVERS = [
  ["Bun.serve", listenBun],
  ["node:http", listenNode],
] as const;

describe.each(SERVERS)("loopback server: %s", (_name, listen) => {
  async function serve(): Promise<{ base: string; sinks: Sink[] }> {
    const sinks: Sink[] = [];
    const server = await listen(handlerFor((sink) => sinks.push(sink)));
    open.push(server);
    return { base: `http://127.0.0.1:${server.port}`, sinks };
  }

  test("a whole response: status, headers, the request's method, query, headers and body, decoded path", async () => {
    const { base } = await serve();
    const response = await fetch(`${base}/%65cho?q=1`, { method: "POST", headers: { "x-test": "yes" }, body: "payload" });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-seen")).toBe("yes");
    const text = await response.text();
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toEqual({ method: "POST", query: "1", body: "payload" });
  });

  test("a streamed body arrives in order and ends; the sink reports closed", async () => {
    const { base, sinks } = await serve();
    const response = await fetch(`${base}/pieces`);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toBe("data: one\n\ndata: two\n\n");
    await sinks[0]?.whenClosed;
    expect(sinks[0]?.closed).toBe(true);
  });

  test("a client abort settles whenClosed of a stalled response", async () => {
    const { base, sinks } = await serve();
    const abort = new AbortController();
    const response = await fetch(`${base}/stall`, { signal: abort.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    abort.abort();
    await sinks[0]?.whenClosed;
    expect(sinks[0]?.closed).toBe(true);
  });

  test("close ends a stalled response at once and settles its sink", async () => {
    const sinks: Sink[] = [];
    const server = await listen(handlerFor((sink) => sinks.push(sink)));
    const response = await fetch(`http://127.0.0.1:${server.port}/stall`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await Promise.all([server.close(), server.close()]);
    await expect(reader.read()).rejects.toThrow();
    await sinks[0]?.whenClosed;
  });

  test("destroy drops the connection mid-body: the client sees an error, not a short body", async () => {
    const { base } = await serve();
    const response = await fetch(`${base}/drop`);
    await expect(response.text()).rejects.toThrow();
  });

  test("a failing handler is a plain 500 naming the failure", async () => {
    const { base } = await serve();
    const response = await fetch(`${base}/throw`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("fake gateway failure: Error: handler broke\n");
  });

  test("a keep-alive connection serves the next request on the same socket", async () => {
    const { base } = await serve();
    const port = Number(new URL(base).port);
    const replies = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket = connect(port, "127.0.0.1", () => socket.write("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n"));
      socket.setEncoding("utf8");
      socket.on("error", reject);
      socket.on("data", (data: string) => {
        text += data;
        const answers = text.split("HTTP/1.1 201").length - 1;
        if (answers === 1 && text.endsWith("}") && !text.includes("#2"))
          socket.write("GET /echo HTTP/1.1\r\nHost: x\r\nx-test: #2\r\n\r\n");
        if (answers === 2 && text.endsWith("}")) {
          socket.destroy();
          resolve(text);
        }
      });
    });
    expect(replies.split("HTTP/1.1 201").length - 1).toBe(2);
    expect(replies.toLowerCase()).toContain("x-seen: #2");
  });
});

test("under Bun, listenLoopback serves with Bun.serve", async () => {
  const server = await listenLoopback(handlerFor(() => {}));
  open.push(server);
  // Bun.serve answers with its own Date and no "Connection" header unless asked; node:http always sends "Connection: keep-alive".
  const response = await fetch(`http://127.0.0.1:${server.port}/echo`);
  expect(response.headers.get("connection")).toBeNull();
});
