/**
 * The Anthropic Messages adapter (`POST {baseURL}/v1/messages`): system prompt apart from the messages,
 * `tool_use` / `tool_result` blocks, SSE streaming with `input_json_delta` tool arguments.
 */
import type { LanguageModel, ModelRequest, ModelResponse, ModelStreamPart, TextPart, ToolCallPart } from "@agentd/sdk/model";
import { postJson, postStream } from "../_internal/http.ts";
import { obj } from "../_internal/lenient.ts";
import { type HttpSettings, joinUrl, type ProviderSettings, resolveHttpSettings } from "../_internal/settings.ts";
import { streamError } from "../_internal/stream-parts.ts";
import { generateToolCallId, parseToolInput } from "../_internal/tool-input.ts";
import { type AnthropicMessagesRequest, readMessagesResponse } from "./anthropic-api.ts";
import { decodeAnthropicStream } from "./anthropic-stream.ts";
import { convertAnthropicUsage } from "./convert-anthropic-usage.ts";
import { convertToAnthropicMessages } from "./convert-to-anthropic-messages.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";

/** Settings of {@link createAnthropic}. */
export interface AnthropicSettings extends ProviderSettings {
  /** Default `https://api.anthropic.com` (the path `/v1/messages` is appended). */
  baseURL?: string;
  /** `max_tokens` when the request sets none (the API requires one). Default 4096. */
  maxTokens?: number;
  /** The `anthropic-version` header. Default `2023-06-01`. */
  anthropicVersion?: string;
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

  constructor(settings: AnthropicSettings) {
    this.modelId = settings.model;
    this.#settings = settings;
    this.#http = resolveHttpSettings(this.provider, settings);
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
    const body: AnthropicMessagesRequest = {
      model: this.modelId,
      max_tokens: req.maxOutputTokens ?? this.#settings.maxTokens ?? 4096,
      messages: prompt.messages,
    };
    if (system !== "") body.system = system;
    if (req.tools && req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        input_schema: t.inputSchema,
      }));
      const c = req.toolChoice;
      if (c !== undefined)
        body.tool_choice =
          c === "auto" || c === "none" ? { type: c } : c === "required" ? { type: "any" } : { type: "tool", name: c.toolName };
    }
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.stopSequences && req.stopSequences.length > 0) body.stop_sequences = req.stopSequences;
    if (stream) body.stream = true;
    return body;
  }

  #url(): string {
    return joinUrl(this.#settings.baseURL ?? "https://api.anthropic.com", "v1/messages");
  }

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const json = await postJson(this.#http, {
      url: this.#url(),
      headers: this.#headers(),
      body: this.#body(req, false),
      signal: req.signal,
    });
    const wire = obj(json);
    if (wire.type === "error") throw streamError(this.provider, wire.error, this.#http.secrets);
    const r = readMessagesResponse(json);
    const content: Array<TextPart | ToolCallPart> = [];
    for (const b of r.content) {
      if (b.type === "text") {
        if (b.text) content.push({ type: "text", text: b.text });
      } else
        content.push({ type: "tool-call", toolCallId: b.id ?? generateToolCallId(), toolName: b.name, input: parseToolInput(b.input) });
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
      { url: this.#url(), headers: this.#headers(), body: this.#body(req, true), signal: req.signal },
      (events) => decodeAnthropicStream(events, this.provider, this.#http.secrets),
    );
  }
}

/** An Anthropic Messages model. */
export const createAnthropic = (settings: AnthropicSettings): LanguageModel => new AnthropicLanguageModel(settings);
