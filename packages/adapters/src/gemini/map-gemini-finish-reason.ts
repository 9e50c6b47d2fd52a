/** Gemini `finishReason`, mapped to ours. */
import type { FinishReason } from "@agentd/sdk/model";

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/**
 * Map `finishReason`. Gemini says `STOP` after function calls too, so `hasToolCalls` upgrades it.
 * `MALFORMED_FUNCTION_CALL` (the model wrote a call that did not parse) is an error; a blocked prompt
 * (no candidate, `promptFeedback.blockReason`) is a content filter.
 */
export function mapGeminiFinishReason(reason: string | undefined, hasToolCalls: boolean, blocked = false): FinishReason {
  if (blocked) return "content-filter";
  if (reason === "STOP" || reason === undefined) return hasToolCalls ? "tool-calls" : reason ? "stop" : "other";
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content-filter";
  if (reason === "MALFORMED_FUNCTION_CALL" || reason === "UNEXPECTED_TOOL_CALL") return "error";
  return "other";
}
