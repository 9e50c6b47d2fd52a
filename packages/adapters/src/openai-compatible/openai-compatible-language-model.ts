/**
 * The OpenAI-compatible chat completions adapter (`POST {baseURL}/chat/completions`): OpenAI itself and
 * the gateways that copy it (vLLM, Ollama, LM Studio, LiteLLM, OpenRouter …). Native tool calling with
 * parallel calls, SSE streaming with usage, `response_format` for JSON output; `supportsTools: false`
 * for models without tool calling (the loop then uses the JSON action shape). Reasoning servers (vLLM,
 * DeepSeek, Ollama) return `reasoning_content` / `reasoning`: read into reasoning parts, never the answer;
 * `reasoning_effort` goes out when configured.
 */
import type { AssistantPart, LanguageModel, ModelRequest, ModelResponse, ModelStreamPart } from "@agentd/sdk/model";
import { postJson, postStream } from "../_internal/http.ts";
import { obj } from "../_internal/lenient.ts";
import { type HttpSettings, joinUrl, type ProviderSettings, resolveHttpSettings } from "../_internal/settings.ts";
import { streamError } from "../_internal/stream-parts.ts";
import type { ThinkingSettings } from "../_internal/thinking.ts";
import { generateToolCallId, parseToolInput } from "../_internal/tool-input.ts";
import { convertOpenAICompatibleUsage } from "./convert-openai-compatible-usage.ts";
import { convertToOpenAICompatibleMessages } from "./convert-to-openai-compatible-messages.ts";
import { mapOpenAICompatibleFinishReason } from "./map-openai-compatible-finish-reason.ts";
import { type OpenAICompatibleChatRequest, readChatResponse } from "./openai-compatible-api.ts";
import { decodeOpenAICompatibleStream } from "./openai-compatible-stream.ts";

/** Settings of {@link createOpenAICompatible}. */
export interface OpenAICompatibleSettings extends ProviderSettings {
  /** The API root that has `/chat/completions` under it, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** Whether the model calls tools natively (default true). */
  supportsTools?: boolean;
  /** Name used in errors and telemetry (default `openai-compatible`). */
  provider?: string;
  /** Ask for a final usage chunk when streaming (default true; turn off for gateways that reject it). */
  includeUsage?: boolean;
  /** Whether `response_format: json_schema` is accepted (default true); otherwise `json_object` is sent. */
  structuredOutputs?: boolean;
  /** `effort` → `reasoning_effort`; `passBack` → which field reasoning returns in (default: dropped). */
  thinking?: ThinkingSettings;
}

/** A model behind an OpenAI-compatible `/chat/completions` endpoint. */
export class OpenAICompatibleLanguageModel implements LanguageModel {
  readonly provider: string;
  readonly modelId: string;
  readonly supportsTools: boolean;
  readonly #http: HttpSettings;
  readonly #settings: OpenAICompatibleSettings;

  constructor(settings: OpenAICompatibleSettings) {
    this.provider = settings.provider ?? "openai-compatible";
    this.modelId = settings.model;
    this.supportsTools = settings.supportsTools ?? true;
    this.#settings = settings;
    this.#http = resolveHttpSettings(this.provider, settings);
  }

  #headers(): Record<string, string> {
    const h: Record<string, string> = { ...this.#settings.headers };
    if (this.#settings.apiKey) h.authorization = `Bearer ${this.#settings.apiKey}`;
    return h;
  }

  #body(req: ModelRequest, stream: boolean): OpenAICompatibleChatRequest {
    const body: OpenAICompatibleChatRequest = {
      model: this.modelId,
      messages: convertToOpenAICompatibleMessages(req.messages, this.supportsTools, this.#passBack()),
    };
    const effort = this.#settings.thinking?.effort;
    if (effort !== undefined && this.#settings.thinking?.enabled !== false) body.reasoning_effort = effort;
    if (this.supportsTools && req.tools && req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description || undefined, parameters: t.inputSchema },
      }));
      const choice = req.toolChoice;
      if (choice !== undefined)
        body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.toolName } };
    }
    if (req.maxOutputTokens !== undefined) body.max_tokens = req.maxOutputTokens;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.stopSequences && req.stopSequences.length > 0) body.stop = req.stopSequences;
    const rf = req.responseFormat;
    if (rf)
      body.response_format =
        rf.schema && this.#settings.structuredOutputs !== false
          ? { type: "json_schema", json_schema: { name: rf.name ?? "response", schema: rf.schema } }
          : { type: "json_object" };
    if (stream) {
      body.stream = true;
      if (this.#settings.includeUsage !== false) body.stream_options = { include_usage: true };
    }
    return body;
  }

  #passBack() {
    const field = this.#settings.thinking?.passBack;
    return field === undefined || field === "none" ? undefined : { field, provider: this.provider };
  }

  #url(): string {
    return joinUrl(this.#settings.baseURL, "chat/completions");
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
    if (wire.error !== undefined && wire.choices === undefined) throw streamError(this.provider, wire.error, this.#http.secrets);
    const r = readChatResponse(json);
    const content: AssistantPart[] = [];
    if (r.reasoning) content.push({ type: "reasoning", provider: this.provider, text: r.reasoning });
    if (r.text) content.push({ type: "text", text: r.text });
    for (const c of r.toolCalls)
      content.push({ type: "tool-call", toolCallId: c.id || generateToolCallId(), toolName: c.name, input: parseToolInput(c.arguments) });
    let finishReason = mapOpenAICompatibleFinishReason(r.finishReason);
    if (r.toolCalls.length > 0 && (finishReason === "stop" || finishReason === "other")) finishReason = "tool-calls";
    const out: ModelResponse = { content, finishReason, usage: convertOpenAICompatibleUsage(r.usage) };
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
      (events) => decodeOpenAICompatibleStream(events, this.provider, this.#http.secrets),
    );
  }
}

/** An OpenAI-compatible chat model. */
export const createOpenAICompatible = (settings: OpenAICompatibleSettings): LanguageModel => new OpenAICompatibleLanguageModel(settings);
