/**
 * Native tool calling: the model returns tool-call parts, the results go back as tool messages. A turn
 * whose calls include one that waits for a person's decision in a run that suspends ends the loop waiting,
 * once the turn's other calls are done; a continued run first finishes that turn with the decisions, then
 * goes on asking the model (run-suspension.ts).
 */
import type { ModelMessage, ToolResultPart } from "../model/language-model.ts";
import type { ExecutedToolCall } from "./execute-tool-call.ts";
import type { FinalAnswer, RunContext } from "./run-context.ts";
import { inCallOrder, type PendingToolCall, type RunSuspension, toolResultOf } from "./run-suspension.ts";

/** A turn that stopped with calls waiting: the results made and the calls that wait. */
export interface TurnWaiting {
  waiting: { results: ToolResultPart[]; pending: PendingToolCall[] };
}

const textOf = (content: Array<{ type: string; text?: string }>): string =>
  content.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");

/** A turn's calls: the results the model will read (after `earlier` ones) and the calls that wait. */
function splitTurn(done: ExecutedToolCall[], earlier: ToolResultPart[]): TurnWaiting["waiting"] {
  return {
    results: [...earlier, ...done.filter((d) => !d.pending).map(toolResultOf)],
    pending: done.flatMap((d) => (d.pending ? [{ request: d.pending, call: d.request }] : [])),
  };
}

/** Run to a final answer, or to a turn whose calls wait (see the module header). */
export async function runNativeLoop(
  ctx: RunContext,
  messages: ModelMessage[],
  onTurn?: (messages: readonly ModelMessage[]) => void,
  continued?: RunSuspension,
): Promise<FinalAnswer | TurnWaiting> {
  const { offered, outputSchema } = ctx.init;
  const request = {
    tools: offered.length ? offered : undefined,
    responseFormat: outputSchema ? { type: "json" as const, schema: outputSchema, name: "output" } : undefined,
  };
  let resumed = continued;
  for (;;) {
    let turn: TurnWaiting["waiting"];
    if (resumed) {
      // The turn the run stopped in: its waiting calls meet their decisions at the gate.
      turn = splitTurn(await ctx.runTools(resumed.pending.map((p) => p.call)), resumed.results);
      resumed = undefined;
    } else {
      const response = await ctx.ask(messages, request);
      messages.push({ role: "assistant", content: response.content });
      const calls = response.content.filter((p) => p.type === "tool-call");
      if (calls.length === 0) {
        const answer = ctx.acceptFinal(textOf(response.content));
        if (!("reask" in answer)) return answer;
        messages.push({ role: "user", content: answer.reask });
        continue;
      }
      turn = splitTurn(await ctx.runTools(calls.map((c) => ({ toolCallId: c.toolCallId, name: c.toolName, input: c.input }))), []);
    }
    if (turn.pending.length > 0) return { waiting: turn };
    messages.push({ role: "tool", content: inCallOrder(messages.at(-1), turn.results) });
    onTurn?.(messages.slice(1));
  }
}
