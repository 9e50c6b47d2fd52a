/**
 * An outbound stream of a Streamable HTTP session, as the session keeps it: the stream of one POST (its
 * requests still pending, the responses sent on it) or the standalone GET stream, with its connected SSE
 * writer or none while the peer is away, or, in JSON response mode, the responses collected for one body.
 */
import type { RequestId } from "../../wire/jsonrpc.ts";
import type { JsonExchange } from "./json-exchange.ts";
import type { Answered } from "./session-replay.ts";
import type { SseWriter } from "./sse-writer.ts";

/** The pending set of a stream that carries no request (the standalone GET stream): never written to. */
const NO_KEYS: RequestId[] = [];

/** An outbound stream of the session. */
export interface OutStream {
  id: number;
  kind: "post" | "standalone";
  /** The last sequence number used (0 is the priming event). */
  seq: number;
  /** Requests still awaiting a response (POST streams, a few at most; {@link NO_KEYS} for the standalone stream). */
  pending: RequestId[];
  /** Responses sent on it so far: request id and event sequence (POST streams). */
  answered?: Answered;
  /** The connected SSE writer, or null while the peer is away (events are still stored). */
  writer: SseWriter | null;
  /**
   * JSON response mode: the exchange collecting the responses, settled when nothing on it is pending any
   * more (settling twice does nothing).
   */
  json?: JsonExchange;
}

/**
 * A new stream numbered `id`, pending on `requestIds` (none for the standalone stream). The stream takes
 * the array over: the POST handler builds one per request and never reads it again.
 */
export function newOutStream(id: number, kind: OutStream["kind"], requestIds: RequestId[]): OutStream {
  return { id, kind, seq: 0, pending: requestIds.length ? requestIds : NO_KEYS, writer: null };
}

/** Remove `key` from a stream's few pending ids. */
export function removeKey(keys: RequestId[], key: RequestId): void {
  const i = keys.indexOf(key);
  if (i >= 0) keys.splice(i, 1);
}
