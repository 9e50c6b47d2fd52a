/**
 * One-off measurement (not a test): messages per second of JSON.parse + classify + codec validation +
 * JSON.stringify over the corpus, against the bare JSON floor (JSON.parse + JSON.stringify).
 * Run: `bun packages/sdk/src/__fixtures__/bench-codec.ts`.
 */
import { classify } from "../wire/jsonrpc.ts";
import * as v from "valibot";
import { getCodec, REVISION_TABLES } from "../wire/codecs.ts";
import type { McpCodec } from "../wire/codec.ts";
import { CORPUS, type CorpusEntry } from "./corpus.ts";

const codec = getCodec("2025-11-25");
const valid = CORPUS.filter((e) => e.revisions.includes("2025-11-25"));

function pipeline(text: string, method: string, c: McpCodec): string {
  const value = JSON.parse(text);
  const k = classify(value);
  if (k.kind === "request") {
    const r = c.requestParams(k.message.method, k.message.params);
    if (!r.ok) throw new Error(r.message);
  } else if (k.kind === "notification") {
    const r = c.notificationParams(k.message.method, k.message.params);
    if (!r.ok) throw new Error(r.message);
  } else if (k.kind === "result") {
    const r = c.result(method, k.message.result);
    if (!r.ok) throw new Error(r.message);
  }
  return JSON.stringify(value);
}

/**
 * Best rate (msgs/s) of each variant over interleaved 100 ms rounds. Best-of, interleaved: other work on a
 * shared machine only ever slows a round down, and hits both variants alike.
 */
function rates(entries: CorpusEntry[], variants: ((text: string, method: string) => string)[], rounds = 25): number[] {
  const texts = entries.map((e) => [JSON.stringify(e.message), e.method] as const);
  const best = variants.map(() => 0);
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    variants.forEach((run, i) => {
      let count = 0;
      const start = performance.now();
      let elapsed = 0;
      while ((elapsed = performance.now() - start) < 100) {
        for (const [t, m] of texts) sink += run(t, m).length;
        count += texts.length;
      }
      best[i] = Math.max(best[i] as number, count / (elapsed / 1000));
    });
  }
  if (sink < 0) console.log(sink);
  return best;
}

const floor = (text: string) => JSON.stringify(JSON.parse(text));

/** The same pipeline with a plain `v.safeParse` per message (no compiled check), for comparison. */
const table = REVISION_TABLES["2025-11-25"];
function plainValibot(text: string, method: string): string {
  const value = JSON.parse(text);
  const k = classify(value);
  const schema =
    k.kind === "request"
      ? table.requests[k.message.method]?.params
      : k.kind === "notification"
        ? table.notifications[k.message.method]?.params
        : k.kind === "result"
          ? table.requests[method]?.result
          : undefined;
  const part =
    k.kind === "result" ? k.message.result : k.kind === "request" || k.kind === "notification" ? (k.message.params ?? {}) : undefined;
  if (schema !== undefined) v.safeParse(schema, part);
  return JSON.stringify(value);
}
const small = valid.filter((e) => JSON.stringify(e.message).length <= 200);
const sets: [string, CorpusEntry[]][] = [
  [`small messages (<= 200 bytes, ${small.length})`, small],
  [`whole 2025-11-25 corpus (${valid.length})`, valid],
];
for (const [name, entries] of sets) {
  const [bare = 0, full = 0, plain = 0] = rates(entries, [floor, (t, m) => pipeline(t, m, codec), plainValibot]);
  const m = (r: number) => `${(r / 1e6).toFixed(2)} M msgs/s`;
  console.log(
    `${name}: JSON floor ${m(bare)}; with codec ${m(full)} (${(bare / full).toFixed(2)}x); ` +
      `plain valibot safeParse ${m(plain)} (${(bare / plain).toFixed(2)}x)`,
  );
}
