/**
 * The loop for models without native tool calling (`supportsTools: false`). Tools are described in the
 * system prompt; each reply must carry one `{"action":"tool",…}` or `{"action":"final",…}` object,
 * found in the prose by `extractAction`. A reply without one is re-asked a bounded number of times with
 * a corrective message, then taken as the final text answer (a model that will not follow the protocol
 * has still answered). `{"action":"give_up","reason":…}` ends the run as failed (run-failure.ts).
 */
import { extractAction, renderToolResultForJsonActions } from "../model/json-action.ts";
import type { ModelMessage } from "../model/language-model.ts";
import type { FinalAnswer, RunContext } from "./run-context.ts";

/** Re-asks for a reply without a valid action, before it is taken as the final answer. */
export const MAX_ACTION_REASKS = 2;

/** The corrective message after a reply without a valid action. */
export const ACTION_CORRECTION =
  "Your reply did not contain a valid JSON action. Reply with exactly one JSON object: " +
  '{"action":"tool","tool":"<tool name>","arguments":{…}} to call a tool, or {"action":"final","result":…} to answer.';

const textOf = (content: Array<{ type: string; text?: string }>): string =>
  content.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");

/** Run the JSON-action conversation until a final answer (or a budget trip). */
export async function runJsonActionLoop(ctx: RunContext, messages: ModelMessage[]): Promise<FinalAnswer> {
  let reasks = 0;
  for (;;) {
    const response = await ctx.ask(messages);
    const text = textOf(response.content);
    // The model's reasoning stays with its turn: a provider that wants it back finds it there.
    const reasoning = response.content.filter((p) => p.type === "reasoning");
    messages.push({ role: "assistant", content: [...reasoning, { type: "text", text }] });
    const action = extractAction(text);

    if (!action && reasks < MAX_ACTION_REASKS) {
      reasks++;
      messages.push({ role: "user", content: ACTION_CORRECTION });
      continue;
    }
    reasks = 0;

    if (action?.action === "give_up") throw ctx.giveUp(action.reason);

    if (action?.action === "tool") {
      const [done] = await ctx.runTools([{ toolCallId: `json-${ctx.budget.turns}`, name: action.tool, input: action.arguments }]);
      if (!done) throw new Error("unreachable: one request yields one result");
      messages.push({
        role: "user",
        content: renderToolResultForJsonActions({ toolName: action.tool, output: done.fenced, isError: done.outcome.isError }),
      });
      continue;
    }

    const answer =
      action === undefined
        ? ctx.acceptFinal(text)
        : typeof action.result === "string"
          ? ctx.acceptFinal(action.result)
          : ctx.acceptFinal(JSON.stringify(action.result) ?? "null", { json: action.result });
    if ("reask" in answer) {
      messages.push({ role: "user", content: answer.reask });
      continue;
    }
    return answer;
  }
}
