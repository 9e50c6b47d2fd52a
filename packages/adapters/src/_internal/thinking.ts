/**
 * Thinking (reasoning) and prompt-cache settings every dialect reads, each mapping them to its own wire
 * fields: Anthropic `thinking` / `output_config.effort` / `cache_control`, Gemini `thinkingConfig`,
 * OpenAI-compatible `reasoning_effort` and the reasoning field it passes back.
 */
import { AgentdError } from "@agentd/sdk/model";

/** How much a model reasons before answering. */
export interface ThinkingSettings {
  /** Off sends the provider's switch for no thinking (Anthropic `disabled`, Gemini budget 0). Default true. */
  enabled?: boolean;
  /** Reasoning tokens allowed per request (Anthropic `budget_tokens`, at least 1024; Gemini `thinkingBudget`). */
  budgetTokens?: number;
  /** Let the model decide how much to think (Anthropic `adaptive`, Gemini dynamic budget). */
  adaptive?: boolean;
  /** Reasoning effort (OpenAI-compatible `reasoning_effort`, Anthropic `output_config.effort`, Gemini `thinkingLevel`). */
  effort?: "minimal" | "low" | "medium" | "high" | "xhigh" | "max";
  /**
   * OpenAI-compatible only: the message field reasoning text goes back in on later requests, or `none` to
   * drop it (the default: DeepSeek's reasoner refuses `reasoning_content` in input; vLLM and Ollama ignore it).
   */
  passBack?: "none" | "reasoning_content" | "reasoning";
}

/** Anthropic prompt caching: breakpoints placed on the stable prefix. */
export interface PromptCacheSettings {
  /** Default true. */
  enabled?: boolean;
  /** Cache lifetime: `5m` (the API's default) or `1h` (written at a higher price). */
  ttl?: "5m" | "1h";
}

/** Whether thinking is asked for at all (a settings object with `enabled: false` is an explicit off). */
export const thinkingOn = (t: ThinkingSettings | undefined): t is ThinkingSettings => t !== undefined && t.enabled !== false;

/** A one-line configuration error naming the setting. */
export const thinkingConfigError = (message: string) => new AgentdError("E_CONFIG_INVALID", message);
