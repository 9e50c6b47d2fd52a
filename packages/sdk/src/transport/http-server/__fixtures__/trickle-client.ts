/**
 * Test fixture: a raw HTTP/1.1 client on a real TCP socket that sends its headers at once and then its body
 * one byte at a time (a slow-body attack). It resolves with what the server sent once the server closes the
 * connection, and stops trickling then; `stop()` ends it from the test's side.
 */
import net from "node:net";

/** A trickling request in flight. */
export interface Trickle {
  /** What the server sent, once it closed the connection. */
  closed: Promise<string>;
  /** Bytes of the body sent so far. */
  sent(): number;
  stop(): void;
}

/** POST `path` on `port` with `headers`, declaring `length` body bytes and sending one every `everyMs`. */
export function trickle(port: number, path: string, headers: Record<string, string>, length: number, everyMs: number): Trickle {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  let sent = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const head = [
    `POST ${path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    `content-length: ${length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  socket.on("connect", () => {
    socket.write(head);
    timer = setInterval(() => {
      if (sent < length && !socket.destroyed) {
        socket.write(" ");
        sent++;
      }
    }, everyMs);
  });
  socket.on("data", (d) => (received += d.toString("latin1")));
  socket.on("error", () => {});
  const closed = new Promise<string>((resolve) =>
    socket.on("close", () => {
      clearInterval(timer);
      resolve(received);
    }),
  );
  return {
    closed,
    sent: () => sent,
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}
