/**
 * The cap on open A2A streams a principal may hold (SendStreamingMessage, SubscribeToTask, both bindings and
 * versions): a client that opens streams and never reads them must not hold the agent's memory and runs.
 */
import { A2aError } from "../shared/types.ts";
import type { Logger } from "../../log.ts";
import { type CountedSse, sseResponse } from "./sse.ts";

/**
 * An SSE answer counted against its principal's open streams until it ends, or — at the cap — the 429
 * that `refuse` renders (the binding's error shape), with `Retry-After`.
 */
export function createStreamCap(maxStreamsPerPrincipal: number, logger: Logger): CountedSse {
  const openStreams = new Map<string, number>();
  return (who, open, frame, onError, refuse) => {
    const held = openStreams.get(who.id) ?? 0;
    if (held >= maxStreamsPerPrincipal) {
      logger.warn("a2a.stream.refused", { principal: who.id, open: held });
      const res = refuse(
        new A2aError(
          "InvalidRequest",
          `Too Many Requests: this principal already holds ${maxStreamsPerPrincipal} open A2A streams; close one first`,
        ),
      );
      res.headers.set("retry-after", "5");
      return res;
    }
    const events = open();
    openStreams.set(who.id, held + 1);
    const release = () => {
      const n = (openStreams.get(who.id) ?? 1) - 1;
      if (n > 0) openStreams.set(who.id, n);
      else openStreams.delete(who.id);
    };
    return sseResponse(events, frame, onError, undefined, release);
  };
}
