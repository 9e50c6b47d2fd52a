/** OpenAI Responses usage, mapped to ours. */
import type { Usage } from "@agentd/sdk/model";
import type { ResponsesUsage } from "./responses-api.ts";

/**
 * Cached tokens (`input_tokens_details.cached_tokens`) are part of `input_tokens`, reasoning tokens
 * (`output_tokens_details.reasoning_tokens`) part of `output_tokens`: kept apart as details, counted once.
 */
export function convertResponsesUsage(usage: ResponsesUsage | undefined): Usage {
  const inputTokens = usage?.input_tokens ?? 0;
  const outputTokens = usage?.output_tokens ?? 0;
  const out: Usage = { inputTokens, outputTokens, totalTokens: usage?.total_tokens ?? inputTokens + outputTokens };
  if (usage?.cached_tokens !== undefined) out.cacheReadTokens = usage.cached_tokens;
  if (usage?.reasoning_tokens !== undefined) out.reasoningTokens = usage.reasoning_tokens;
  return out;
}
