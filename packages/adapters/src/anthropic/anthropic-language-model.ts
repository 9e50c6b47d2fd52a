/**
 * The Anthropic Messages adapter (`POST {baseURL}/v1/messages`): system prompt apart from the messages,
 * `tool_use` / `tool_result` blocks, SSE streaming with `input_json_delta` tool arguments, extended or
 * adaptive thinking (blocks kept in the conversation and sent back unchanged), and prompt-cache
 * breakpoints on the stable prefix.
 */
import type { AssistantPart, LanguageModel, ModelRequest, ModelResponse, ModelStreamPart } from "@agentd/sdk/model";
import { postJson, postStream } from "../_internal/http.ts";
import { obj } from "../_internal/lenient.ts";
import { type HttpSettings, joinUrl, type ProviderSettings, resolveHttpSettings } from "../_internal/settings.ts";
import { streamError } from "../_internal/stream-parts.ts";
import { type PromptCacheSettings, type ThinkingSettings, thinkingConfigError, thinkingOn } from "../_internal/thinking.ts";
import { generateToolCallId, parseToolInput } from "../_internal/tool-input.ts";
import { type AnthropicMessagesRequest, type AnthropicThinking, readMessagesResponse } from "./anthropic-api.ts";
import { decodeAnthropicStream } from "./anthropic-stream.ts";
import { convertAnthropicUsage } from "./convert-anthropic-usage.ts";
import { convertToAnthropicMessages } from "./convert-to-anthropic-messages.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";
import { placeAnthropicCacheControl } from "./place-anthropic-cache-control.ts";

/** Settings of {@link createAnthropic}. */
export interface AnthropicSettings extends ProviderSettings {
  /** Default `https://api.anthropic.com` (the path `/v1/messages` is appended). */
  baseURL?: string;
  /** `max_tokens` when the request sets none (the API requires one). Default 4096. */
  maxTokens?: number;
  /** The `anthropic-version` header. Default `2023-06-01`. */
  anthropicVersion?: string;
  /** Extended thinking (`budgetTokens` >= 1024) or adaptive thinking; absent sends no `thinking` field. */
  thinking?: ThinkingSettings;
  /** Prompt-cache breakpoints (default on). */
  promptCache?: PromptCacheSettings;
}

/** The API's floor for `budget_tokens`. */
const MIN_THINKING_BUDGET = 1024;

/** The `thinking` parameter for the settings; a mistake is a one-line `E_CONFIG_INVALID`. */
function thinkingParam(t: ThinkingSettings | undefined): AnthropicThinking | undefined {
  if (t === undefined) return undefined;
  if (!thinkingOn(t)) return { type: "disabled" };
  if (t.adaptive) return { type: "adaptive" };
  if (t.budgetTokens === undefined)
    throw thinkingConfigError("anthropic thinking needs model.thinking.budgetTokens (1024 or more) or model.thinking.adaptive: true");
  if (!Number.isInteger(t.budgetTokens) || t.budgetTokens < MIN_THINKING_BUDGET)
    throw thinkingConfigError(
      `model.thinking.budgetTokens must be a whole number of at least ${MIN_THINKING_BUDGET} for anthropic, got ${t.budgetTokens}`,
    );
  return { type: "enabled", budget_tokens: t.budgetTokens };
}

/**
 * Anthropic has no JSON response mode on this API version, so a JSON request becomes an instruction in
 * the system prompt; the loop's structured-output check validates the answer either way.
 */
const jsonInstruction = (schema?: Record<string, unknown>) =>
  `Reply with a single JSON value and no other text.${schema ? ` It must validate against this JSON Schema: ${JSON.stringify(schema)}` : ""}`;

/** A model behind the Anthropic Messages API. */
export class AnthropicLanguageModel implements LanguageModel {
  readonly provider = "anthropic";
  readonly modelId: string;
  readonly supportsTools = true;
  readonly #http: HttpSettings;
  readonly #settings: AnthropicSettings;
  readonly #thinking: AnthropicThinking | undefined;

  constructor(settings: AnthropicSettings) {
    this.modelId = settings.model;
    this.#settings = settings;
    this.#http = resolveHttpSettings(this.provider, settings, "https://api.anthropic.com");
    this.#thinking = thinkingParam(settings.thinking);
  }

  #headers(): Record<string, string> {
    const h: Record<string, string> = {
      "anthropic-version": this.#settings.anthropicVersion ?? "2023-06-01",
      ...this.#settings.headers,
    };
    if (this.#settings.apiKey) h["x-api-key"] = this.#settings.apiKey;
    return h;
  }

  #body(req: ModelRequest, stream: boolean): AnthropicMessagesRequest {
    const prompt = convertToAnthropicMessages(req.messages);
    const system = [prompt.system, req.responseFormat ? jsonInstruction(req.responseFormat.schema) : undefined]
      .filter((s): s is string => s !== undefined)
      .join("\n\n");
    const answerTokens = req.maxOutputTokens ?? this.#settings.maxTokens ?? 4096;
    const thinking = this.#thinking;
    const thinks = thinking !== undefined && thinking.type !== "disabled";
    const body: AnthropicMessagesRequest = {
      model: this.modelId,
      // Thinking counts toward max_tokens and its budget must stay below it: the budget comes on top.
      max_tokens: thinking?.type === "enabled" ? thinking.budget_tokens + answerTokens : answerTokens,
      messages: prompt.messages,
    };
    if (system !== "") body.system = system;
    if (thinking) body.thinking = thinking;
    if (thinking?.type === "adaptive" && this.#settings.thinking?.effort) body.output_config = { effort: this.#settings.thinking.effort };
    if (req.tools && req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({
        name: t.name,
        description: t.description || undefined,
        input_schema: t.inputSchema,
      }));
      const c = req.toolChoice;
      // With thinking on the API refuses a forced tool choice (`any` / `tool`): the model chooses.
      if (c === "none" || c === "auto") body.tool_choice = { type: c };
      else if (c !== undefined && thinks) body.tool_choice = { type: "auto" };
      else if (c === "required") body.tool_choice = { type: "any" };
      else if (c !== undefined) body.tool_choice = { type: "tool", name: c.toolName };
    }
    // With thinking on the API accepts no temperature but its default.
    if (req.temperature !== undefined && !thinks) body.temperature = req.temperature;
    if (req.stopSequences && req.stopSequences.length > 0) body.stop_sequences = req.stopSequences;
    if (stream) body.stream = true;
    if (this.#settings.promptCache?.enabled !== false) placeAnthropicCacheControl(body, this.#settings.promptCache?.ttl);
    return body;
  }

  #url(): string {
    return joinUrl(this.#settings.baseURL ?? "https://api.anthropic.com", "v1/messages");
  }

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const json = await postJson(this.#http, {
      url: this.#url(),
      headers: { ...req.headers, ...this.#headers() },
      body: this.#body(req, false),
      signal: req.signal,
      onRetry: req.onRetry,
    });
    const wire = obj(json);
    if (wire.type === "error") throw streamError(this.provider, wire.error, this.#http.secrets);
    const r = readMessagesResponse(json);
    const content: AssistantPart[] = [];
    for (const b of r.content) {
      if (b.type === "text") {
        if (b.text) content.push({ type: "text", text: b.text });
      } else if (b.type === "thinking")
        content.push({ type: "reasoning", provider: this.provider, text: b.thinking, signature: b.signature });
      else if (b.type === "redacted_thinking") content.push({ type: "reasoning", provider: this.provider, text: "", redactedData: b.data });
      else content.push({ type: "tool-call", toolCallId: b.id ?? generateToolCallId(), toolName: b.name, input: parseToolInput(b.input) });
    }
    let finishReason = mapAnthropicFinishReason(r.stopReason);
    if (finishReason === "other" && content.some((p) => p.type === "tool-call")) finishReason = "tool-calls";
    const out: ModelResponse = { content, finishReason, usage: convertAnthropicUsage(r.usage) };
    if (r.model) out.modelId = r.model;
    return out;
  }

  stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    return postStream(
      this.#http,
      {
        url: this.#url(),
        headers: { ...req.headers, ...this.#headers() },
        body: this.#body(req, true),
        signal: req.signal,
        onRetry: req.onRetry,
      },
      (events) => decodeAnthropicStream(events, this.provider, this.#http.secrets),
    );
  }
}

/** An Anthropic Messages model. */
export const createAnthropic = (settings: AnthropicSettings): LanguageModel => new AnthropicLanguageModel(settings);
