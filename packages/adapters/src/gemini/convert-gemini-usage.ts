/** Gemini `usageMetadata`, mapped to ours. */
import type { Usage } from "@agentd/sdk/model";
import type { GeminiUsageMetadata } from "./gemini-api.ts";

/** Output counts thinking tokens (billed as output); the total is Gemini's own when it gives one. */
export function convertGeminiUsage(usage: GeminiUsageMetadata | undefined): Usage {
  const inputTokens = usage?.promptTokenCount ?? 0;
  const outputTokens = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  return { inputTokens, outputTokens, totalTokens: usage?.totalTokenCount ?? inputTokens + outputTokens };
}
