/**
 * When a run fails although nothing broke: the model answered, but the answer is not one a caller can use.
 * Each case ends the run with `E_RUN_FAILED` and `data.reason` (the CLI's exit code 1), so a CronJob can
 * tell it from success:
 *
 * - `content-filter`: the provider withheld or cut the answer (OpenAI `content_filter`, Anthropic
 *   `refusal`, Gemini `SAFETY` and its kin: finish reason `content-filter`), on any turn;
 * - `empty-answer`: the final answer is empty or only whitespace (without an output schema; with one, an
 *   empty answer is an answer that does not validate);
 * - `output-invalid`: the final answer never matched the output schema, after its re-asks;
 * - `gave-up`: the model said it cannot do the task — with native tool calling a final answer that starts
 *   with {@link GIVE_UP} (`GIVE_UP: <why>`), with the JSON action shape `{"action":"give_up","reason":…}`.
 *   The system prompt tells the model both.
 */
import type { Trip } from "./budget.ts";

/** Why a run failed (`data.reason` of its `E_RUN_FAILED`). */
export type RunFailureReason = "content-filter" | "empty-answer" | "output-invalid" | "gave-up";

/** The word a final answer starts with when the model gives up (native tool calling). */
export const GIVE_UP = "GIVE_UP";

/** The system-prompt sentence that tells a native tool caller how to give up. */
export const GIVE_UP_INSTRUCTION = `If you cannot complete the task, reply with ${GIVE_UP}: followed by the reason, and nothing else.`;

const GIVE_UP_ANSWER = new RegExp(`^${GIVE_UP}\\b[\\s:.-]*`);

/** The reason a give-up answer states ("" when none), or undefined when the answer is not a give-up. */
export function giveUpReason(answer: string): string | undefined {
  const trimmed = answer.trim();
  const m = GIVE_UP_ANSWER.exec(trimmed);
  return m ? trimmed.slice(m[0].length).trim() : undefined;
}

/** The trip of a failed run. */
export const failedRun = (message: string): Trip => ({ code: "E_RUN_FAILED", stopReason: "failed", message });

/** The message of a give-up. */
export const gaveUpMessage = (reason: string): string => `the model gave up${reason ? `: ${reason}` : " (it gave no reason)"}`;
