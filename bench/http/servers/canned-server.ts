/**
 * The load generator's ceiling: a raw TCP server on 127.0.0.1 that answers every request head it sees with
 * the same canned 200 JSON response, without parsing anything. Prints `{"port":N}`.
 */
import { serveControl } from "../../lib/server-control.ts";

const body = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}';
const response = `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

const listener = Bun.listen<{ tail: string }>({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(socket) {
      socket.data = { tail: "" };
    },
    data(socket, data) {
      // Bodies carry no blank line, so each "\r\n\r\n" ends one request head. Keep the last 3 bytes: a
      // terminator may straddle two reads.
      const text = socket.data.tail + data.toString("latin1");
      let n = 0;
      for (let i = text.indexOf("\r\n\r\n"); i >= 0; i = text.indexOf("\r\n\r\n", i + 4)) n++;
      const last = text.lastIndexOf("\r\n\r\n");
      socket.data.tail = text.slice(Math.max(last + 4, text.length - 3));
      if (n > 0) socket.write(response.repeat(n));
    },
  },
});
serveControl({ port: listener.port }, () => listener.stop(true));
