/**
 * A session's tables of its POST streams and of the requests awaiting a response, with a single-entry slot
 * in front of each. A client that sends one request at a time (most do, and the benchmark's load does) has
 * one open stream with one pending request: the slots hold it, and no `Map` is made and dropped again for
 * every request. A second entry moves the slot into a `Map`, which is dropped once it is empty again, so an
 * idle session still holds no table at all (a server may hold thousands of them).
 *
 * It is the base class of the session (`session.ts`), as the transport is its own base: one record per
 * session, and no object of its own.
 */
import type { RequestId } from "../../wire/jsonrpc.ts";
import type { PostStream } from "./out-stream.ts";
import { HttpSessionTransport } from "./session-transport.ts";

/** The POST streams and pending requests of one session (see the module header). */
export abstract class SessionTables extends HttpSessionTransport {
  /** The one request awaiting a response, while there is exactly one and no `awaiting` table. */
  declare private soloKey: RequestId | undefined;
  /** The stream of {@link soloKey} (set while the slot is in use). */
  declare private soloPending: PostStream | undefined;
  /** The stream of each request awaiting a response, by id (a Map keeps `1` and `"1"` apart, as JSON-RPC does). */
  declare private awaiting: Map<RequestId, PostStream> | undefined;
  /** The one open POST stream, while there is exactly one and no `streams` table. */
  declare private soloStream: PostStream | undefined;
  /** Open POST streams by number (the standalone stream is the session's own fields). */
  declare private streams: Map<number, PostStream> | undefined;

  /** Requests awaiting a response. */
  get inFlight(): number {
    return this.soloPending !== undefined ? 1 : (this.awaiting?.size ?? 0);
  }

  /** The stream of pending request `key`, if it is pending. */
  protected pendingStream(key: RequestId): PostStream | undefined {
    // `===` matches what a Map's key comparison matches for JSON-RPC ids (strings and numbers, never NaN).
    if (this.soloPending !== undefined) return this.soloKey === key ? this.soloPending : undefined;
    return this.awaiting?.get(key);
  }

  /** Record request `key` as awaiting its response on `stream`. */
  protected addPending(key: RequestId, stream: PostStream): void {
    if (this.soloPending === undefined && this.awaiting === undefined) {
      this.soloKey = key;
      this.soloPending = stream;
      return;
    }
    if (this.soloPending !== undefined) {
      this.awaiting = new Map([[this.soloKey as RequestId, this.soloPending]]);
      this.soloKey = undefined;
      this.soloPending = undefined;
    }
    (this.awaiting as Map<RequestId, PostStream>).set(key, stream);
  }

  /** Remove `key` from the pending requests (the table is dropped once empty). */
  protected forgetPending(key: RequestId): void {
    if (this.soloPending !== undefined) {
      if (this.soloKey !== key) return;
      this.soloKey = undefined;
      this.soloPending = undefined;
      return;
    }
    if (!this.awaiting) return;
    this.awaiting.delete(key);
    if (this.awaiting.size === 0) this.awaiting = undefined;
  }

  /** Forget every pending request (the session ended). */
  protected clearPending(): void {
    this.soloKey = undefined;
    this.soloPending = undefined;
    this.awaiting = undefined;
  }

  /** Record an opened POST stream. */
  protected addStream(stream: PostStream): void {
    if (this.soloStream === undefined && this.streams === undefined) {
      this.soloStream = stream;
      return;
    }
    if (this.soloStream !== undefined) {
      this.streams = new Map([[this.soloStream.streamId, this.soloStream]]);
      this.soloStream = undefined;
    }
    (this.streams as Map<number, PostStream>).set(stream.streamId, stream);
  }

  /** The open POST stream numbered `streamId`. */
  protected streamById(streamId: number): PostStream | undefined {
    if (this.soloStream !== undefined) return this.soloStream.streamId === streamId ? this.soloStream : undefined;
    return this.streams?.get(streamId);
  }

  /** Remove an ended POST stream (the table is dropped once empty). */
  protected removeStream(streamId: number): void {
    if (this.soloStream !== undefined) {
      if (this.soloStream.streamId === streamId) this.soloStream = undefined;
      return;
    }
    if (this.streams?.delete(streamId) && this.streams.size === 0) this.streams = undefined;
  }

  /** The open POST streams, as a list of their own (the caller may end them while it walks it). */
  protected openStreams(): PostStream[] {
    if (this.soloStream !== undefined) return [this.soloStream];
    return this.streams ? [...this.streams.values()] : [];
  }

  /** The open POST stream written by `writer`, if any. */
  protected streamOfWriter(writer: unknown): PostStream | undefined {
    if (this.soloStream !== undefined) return this.soloStream.writer === writer ? this.soloStream : undefined;
    if (this.streams === undefined) return undefined;
    for (const s of this.streams.values()) if (s.writer === writer) return s;
    return undefined;
  }
}
