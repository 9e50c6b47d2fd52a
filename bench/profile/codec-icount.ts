/**
 * Profiling aid (not part of `bun bench/run.ts`): a fixed amount of codec work, for instruction counts
 * under callgrind, which are repeatable on a loaded machine where rates are not. Every variant does the
 * same warm-up (2,000 rounds of every pipeline over the small group), then ROUNDS rounds of one pipeline;
 * the difference between ROUNDS = 0 and ROUNDS = N, divided by N × 6 messages, is its cost per message.
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out bun bench/profile/codec-icount.ts PIPELINE ROUNDS
 *
 * PIPELINE: floor (JSON.parse + JSON.stringify), classify (the floor plus `classify`), agentd (the codec
 * benchmark's agentd pipeline).
 */
import { classify } from "../../packages/sdk/src/wire/jsonrpc.ts";
import { GROUPS, type CodecMessage } from "../codec/corpus.ts";
import { agentd, floor } from "../codec/pipelines.ts";

const group = GROUPS.find((g) => g.id === "small");
if (!group) throw new Error("no small message group in the codec corpus");
const messages = group.messages;
const [which = "floor", rounds = "0"] = process.argv.slice(2);
const withClassify = (m: CodecMessage): string => {
  const value: unknown = JSON.parse(m.text);
  if (classify(value).kind === "invalid") throw new Error(`${m.name} is invalid`);
  return `${JSON.stringify(value)}\n`;
};
const pipelines: Record<string, (m: CodecMessage) => string> = { floor, classify: withClassify, agentd };
const run = pipelines[which];
if (!run) throw new Error(`unknown pipeline "${which}": use floor, classify or agentd`);
let sink = 0;
for (let i = 0; i < 2000; i++) for (const m of messages) sink += floor(m).length + withClassify(m).length + agentd(m).length;
for (let i = 0; i < Number(rounds); i++) for (const m of messages) sink += run(m).length;
if (sink < 0) console.log(sink);
