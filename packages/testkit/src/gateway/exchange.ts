/**
 * What the gateways' loopback HTTP server hands a handler, whichever runtime serves it: the request with
 * its body read, and a small response sink able to do what a fault needs: flush headers, write in pieces,
 * and drop the connection.
 */

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
  /**
   * Status and headers, body to follow. Under Bun the headers leave with the first body byte (`Bun.serve`
   * sends none before), under Node at once.
   */
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

/** Answers one exchange; a rejection becomes a plain 500 (or a dropped connection once headers left). */
export type ExchangeHandler = (exchange: Exchange, sink: Sink) => Promise<void>;

/** A listening loopback server. */
export interface LoopbackServer {
  port: number;
  /** Stop accepting, drop every open connection, resolve when closed. */
  close(): Promise<void>;
}

/** Request bodies above this are refused with 413: a test never needs more, a bug might send it. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * How long an idle keep-alive connection is kept, in seconds: longer than any client's pause between turns
 * (a tool call on a loaded machine can take seconds). Closing it at 1 s raced clients reusing it, whose
 * retried request then met the script's next turn. `close()` still ends every connection at once.
 */
export const KEEP_ALIVE_SECONDS = 65;

/** The body of the 500 a failing handler turns into. */
export const failureText = (error: unknown) => `fake gateway failure: ${String(error)}\n`;

/** Percent-decode a path; a malformed escape leaves it as sent. */
export function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
