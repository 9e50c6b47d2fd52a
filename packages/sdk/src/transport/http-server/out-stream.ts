/**
 * An outbound stream of a Streamable HTTP session, as the session keeps it: the stream of one POST (its
 * requests still pending, the responses sent on it, `StreamAnswers`) or the standalone GET stream, with its connected SSE
 * writer or none while the peer is away, or, in JSON response mode, the responses collected for one body.
 * A POST's stream is a record of its own; the standalone stream's fields are the session's own (`session.ts`:
 * one object less for each of the thousands of idle sessions a server may hold).
 */
import type { RequestId } from "../../wire/jsonrpc.ts";
import type { JsonExchange } from "./json-exchange.ts";
import type { StreamAnswers } from "./session-replay.ts";
import type { SseWriter } from "./sse-writer.ts";

/** An outbound stream of the session: what every stream has. */
export interface OutStream extends StreamAnswers {
  /** The stream's number in its session (the first part of its event ids). */
  streamId: number;
  /** The last sequence number used (0 is the priming event). */
  seq: number;
  /** The connected SSE writer, or null while the peer is away (events are still stored). */
  writer: SseWriter | null;
  /**
   * JSON response mode: the exchange collecting the responses, settled when nothing on it is pending any
   * more (settling twice does nothing).
   */
  json?: JsonExchange;
}

/** The stream of one POST: also the requests on it still awaiting a response. */
export interface PostStream extends OutStream {
  /** Requests still awaiting a response (a few at most). */
  pending: RequestId[];
}

/**
 * A new POST stream numbered `id`, pending on `requestIds`. The stream takes the array over: the POST
 * handler builds one per request and never reads it again.
 */
export function newPostStream(id: number, requestIds: RequestId[]): PostStream {
  return { streamId: id, seq: 0, pending: requestIds, writer: null, answerKey: undefined, answerSeq: 0 };
}

/** Remove `key` from a stream's few pending ids. */
export function removeKey(keys: RequestId[], key: RequestId): void {
  const i = keys.indexOf(key);
  // The last one (a lone request's only one) is popped: `splice` would make a list of what it removed.
  if (i === keys.length - 1) keys.pop();
  else if (i >= 0) keys.splice(i, 1);
}
