/** OpenAI-compatible usage, mapped to ours. */
import type { Usage } from "@agentd/sdk/model";
import type { OpenAICompatibleUsage } from "./openai-compatible-api.ts";

/**
 * Missing counts are 0 (local gateways often send none); a missing total is the sum. Cached prompt
 * tokens are part of `prompt_tokens`, reasoning tokens part of `completion_tokens`: kept apart as details.
 */
export function convertOpenAICompatibleUsage(usage: OpenAICompatibleUsage | undefined): Usage {
  const inputTokens = usage?.prompt_tokens ?? 0;
  const outputTokens = usage?.completion_tokens ?? 0;
  const out: Usage = { inputTokens, outputTokens, totalTokens: usage?.total_tokens ?? inputTokens + outputTokens };
  if (usage?.cached_tokens !== undefined) out.cacheReadTokens = usage.cached_tokens;
  if (usage?.reasoning_tokens !== undefined) out.reasoningTokens = usage.reasoning_tokens;
  return out;
}
