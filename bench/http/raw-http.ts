/**
 * A minimal HTTP/1.1 client on raw keep-alive sockets (`Bun.connect`), for the load generator and for the
 * idle-session client: thousands of connections without the pooling limits of `fetch`, and a GET stream that
 * stays open while only its headers are awaited. Handles Content-Length and chunked bodies; no pipelining.
 */
import type { Socket } from "bun";

/** A complete response (or, for a stream, its head). */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Pending {
  resolve(r: RawResponse): void;
  reject(e: Error): void;
  /** Resolve at the end of the head and keep reading the body as an endless stream. */
  headOnly: boolean;
}

const CRLF2 = "\r\n\r\n";

/** One keep-alive connection; one request at a time. */
export class RawConnection {
  private socket?: Socket<undefined>;
  private buf = "";
  private pending?: Pending;
  private head?: RawResponse & { length: number; chunked: boolean };
  private streaming = false;
  private unsent = "";
  closed = false;
  /** Bytes received on an open stream. */
  streamedBytes = 0;

  private constructor(readonly hostHeader: string) {}

  /** Connect to 127.0.0.1:port. */
  static async open(port: number): Promise<RawConnection> {
    const conn = new RawConnection(`127.0.0.1:${port}`);
    conn.socket = await Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        data: (_s, data) => conn.onData(data),
        drain: (s) => conn.flush(s),
        close: () => conn.onClose(new Error("connection closed")),
        error: (_s, e) => conn.onClose(e),
      },
    });
    return conn;
  }

  /** Send a request and resolve with the whole response. */
  request(method: string, path: string, headers: Record<string, string>, body = ""): Promise<RawResponse> {
    return this.send(method, path, headers, body, false);
  }

  /** Send a request and resolve with the response head; the body then streams (counted, dropped). */
  openStream(path: string, headers: Record<string, string>): Promise<RawResponse> {
    return this.send("GET", path, headers, "", true);
  }

  close(): void {
    this.closed = true;
    this.socket?.end();
  }

  private send(method: string, path: string, headers: Record<string, string>, body: string, headOnly: boolean): Promise<RawResponse> {
    if (this.closed) return Promise.reject(new Error("connection closed"));
    if (this.pending || this.streaming) return Promise.reject(new Error("one request at a time"));
    let text = `${method} ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\n`;
    for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\r\n`;
    text += `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, headOnly };
      this.unsent += text;
      if (this.socket) this.flush(this.socket);
    });
  }

  private flush(s: Socket<undefined>): void {
    if (!this.unsent) return;
    const written = s.write(this.unsent);
    this.unsent = written >= this.unsent.length ? "" : this.unsent.slice(written);
  }

  private onClose(e: Error): void {
    this.closed = true;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(e);
  }

  private onData(data: Buffer): void {
    if (this.streaming) {
      this.streamedBytes += data.length;
      return;
    }
    this.buf += data.toString("latin1");
    this.parse();
  }

  private parse(): void {
    if (!this.head) {
      const end = this.buf.indexOf(CRLF2);
      if (end < 0) return;
      const lines = this.buf.slice(0, end).split("\r\n");
      this.buf = this.buf.slice(end + 4);
      const status = Number((lines[0] ?? "").split(" ")[1]);
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const chunked = (headers["transfer-encoding"] ?? "").includes("chunked");
      this.head = { status, headers, body: "", length: Number(headers["content-length"] ?? 0), chunked };
      if (this.pending?.headOnly) {
        const p = this.pending;
        this.pending = undefined;
        this.streaming = true;
        this.streamedBytes = this.buf.length;
        this.buf = "";
        p.resolve({ status, headers, body: "" });
        return;
      }
    }
    const head = this.head;
    let body: string | undefined;
    if (head.chunked) body = this.takeChunked();
    else if (this.buf.length >= head.length) {
      body = this.buf.slice(0, head.length);
      this.buf = this.buf.slice(head.length);
    }
    if (body === undefined) return;
    this.head = undefined;
    const p = this.pending;
    this.pending = undefined;
    p?.resolve({ status: head.status, headers: head.headers, body: Buffer.from(body, "latin1").toString("utf8") });
  }

  /** The whole chunked body once its last chunk is in, else undefined (nothing consumed). */
  private takeChunked(): string | undefined {
    let at = 0;
    let body = "";
    for (;;) {
      const nl = this.buf.indexOf("\r\n", at);
      if (nl < 0) return undefined;
      const size = parseInt(this.buf.slice(at, nl), 16);
      if (Number.isNaN(size)) throw new Error(`bad chunk size in ${this.buf.slice(at, at + 40)}`);
      if (size === 0) {
        const end = this.buf.indexOf("\r\n", nl + 2);
        if (end < 0) return undefined;
        this.buf = this.buf.slice(end + 2);
        return body;
      }
      if (this.buf.length < nl + 2 + size + 2) return undefined;
      body += this.buf.slice(nl + 2, nl + 2 + size);
      at = nl + 2 + size + 2;
    }
  }
}
