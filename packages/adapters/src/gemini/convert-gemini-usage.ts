/** Gemini `usageMetadata`, mapped to ours. */
import type { Usage } from "@agentd/sdk/model";
import type { GeminiUsageMetadata } from "./gemini-api.ts";

/**
 * Output counts thinking tokens (billed as output, kept apart in `reasoningTokens`); cached prompt tokens
 * are part of `promptTokenCount` (kept apart in `cacheReadTokens`); the total is Gemini's own when given.
 */
export function convertGeminiUsage(usage: GeminiUsageMetadata | undefined): Usage {
  const inputTokens = usage?.promptTokenCount ?? 0;
  const outputTokens = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  const out: Usage = { inputTokens, outputTokens, totalTokens: usage?.totalTokenCount ?? inputTokens + outputTokens };
  if (usage?.cachedContentTokenCount !== undefined) out.cacheReadTokens = usage.cachedContentTokenCount;
  if (usage?.thoughtsTokenCount !== undefined) out.reasoningTokens = usage.thoughtsTokenCount;
  return out;
}
