/**
 * A run's events with the secrets in them masked, once, before anyone sees them: what a tool returned, the
 * model's words, an error line — any of them can quote a value agentd holds as a secret (`secret-values.ts`).
 * Text and reasoning deltas go through a stream masker each (`secret-stream.ts`), so a value the model writes
 * over several deltas is masked too; what it holds back is sent as one more delta of the same stream before
 * the next event of another kind. Every other event is masked whole.
 */
import { createStreamMasker, type StreamMasker } from "../secret-stream.ts";
import { hasSecretValues, maskSecrets } from "../secret-values.ts";
import type { RunEvent } from "./events.ts";

type DeltaEvent = Extract<RunEvent, { type: "text-delta" | "reasoning-delta" }>;

/** The sink, behind a masker of the events sent to it (one per run: deltas keep state). */
export function maskRunEvents(sink: (event: RunEvent) => void): (event: RunEvent) => void {
  const streams = new Map<DeltaEvent["type"], { masker: StreamMasker; last: DeltaEvent }>();
  const flush = (except?: DeltaEvent["type"]) => {
    for (const [type, s] of streams) {
      if (type === except) continue;
      streams.delete(type);
      const rest = s.masker.end();
      if (rest) sink({ ...s.last, delta: rest });
    }
  };
  return (event) => {
    if (event.type === "text-delta" || event.type === "reasoning-delta") {
      flush(event.type);
      let s = streams.get(event.type);
      if (s && s.last.turn !== event.turn) {
        flush();
        s = undefined;
      }
      if (!s) {
        // Nothing to mask and nothing held: the delta goes as it came.
        if (!hasSecretValues()) return sink(event);
        s = { masker: createStreamMasker(), last: event };
        streams.set(event.type, s);
      }
      s.last = event;
      const delta = s.masker.push(event.delta);
      if (delta) sink({ ...event, delta });
      return;
    }
    flush();
    sink(maskSecrets(event));
  };
}
