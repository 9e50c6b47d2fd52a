/**
 * An SSE response from a stream of events: each event one `data:` line of JSON. The first event is written
 * at once (Bun sends no headers before the first body byte), keep-alive comments keep idle timers from
 * cutting a quiet stream, and a client that goes away stops the iteration (its `finally` runs).
 */
import type { A2aError, StreamResponse } from "../shared/types.ts";
import type { Principal } from "../../serve/principal.ts";

/**
 * An SSE answer counted against its principal's open streams: `open` makes the events, `frame` and
 * `onError` render them, `refuse` renders the refusal at the cap in the binding's error shape.
 */
export type CountedSse = (
  who: Principal,
  open: () => AsyncIterable<StreamResponse>,
  frame: (e: StreamResponse) => unknown,
  onError: (e: unknown) => unknown,
  refuse: (e: A2aError) => Response,
) => Response;

const encoder = new TextEncoder();

/**
 * Serve `events` as `text/event-stream`, each rendered by `frame`; an error mid-stream by `onError`.
 * `onEnd` is called once when the stream ends, however it ends (done, failed, or the client went away).
 */
export function sseResponse(
  events: AsyncIterable<StreamResponse>,
  frame: (e: StreamResponse) => unknown,
  onError: (e: unknown) => unknown,
  keepAliveMs = 15_000,
  onEnd?: () => void,
): Response {
  const it = events[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setInterval> | undefined;
  let ended = false;
  const end = () => {
    clearInterval(timer);
    if (!ended) {
      ended = true;
      onEnd?.();
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          clearInterval(timer);
        }
      }, keepAliveMs);
    },
    async pull(controller) {
      try {
        const next = await it.next();
        if (next.done) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(frame(next.value))}\n\n`));
      } catch (e) {
        end();
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(onError(e))}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      end();
      await it.return?.();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" } });
}
