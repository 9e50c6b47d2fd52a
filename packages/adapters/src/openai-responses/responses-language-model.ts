/**
 * The OpenAI Responses adapter (`POST {baseURL}/responses`), OpenAI's current API: function tools,
 * named streaming events, reasoning items, usage with cached and reasoning tokens. Nothing is stored at
 * OpenAI by default (`store: false`): the whole conversation goes with each request, and a reasoning
 * model's reasoning items go back with their `encrypted_content` (asked for with `include`), which is how
 * they survive tool-use turns unstored. `previousResponseId: true` instead stores responses and sends only
 * what is new since the last one, with `previous_response_id`.
 */
import { sha256 } from "../_internal/sha256.ts";
import type { AssistantPart, LanguageModel, ModelMessage, ModelRequest, ModelResponse, ModelStreamPart } from "@agentd/sdk/model";
import { postJson, postStream } from "../_internal/http.ts";
import { obj } from "../_internal/lenient.ts";
import { type HttpSettings, joinUrl, type ProviderSettings, resolveHttpSettings } from "../_internal/settings.ts";
import { streamError } from "../_internal/stream-parts.ts";
import { thinkingOn, type ThinkingSettings } from "../_internal/thinking.ts";
import { generateToolCallId, parseToolInput } from "../_internal/tool-input.ts";
import { convertResponsesUsage } from "./convert-responses-usage.ts";
import { convertToResponsesInput } from "./convert-to-responses-input.ts";
import { mapResponsesFinishReason } from "./map-responses-finish-reason.ts";
import { type ResponsesInputItem, type ResponsesRequest, readResponse } from "./responses-api.ts";
import { decodeResponsesStream } from "./responses-stream.ts";

/** Settings of {@link createOpenAIResponses}. */
export interface OpenAIResponsesSettings extends ProviderSettings {
  /** The API root that has `/responses` under it (default `https://api.openai.com/v1`). */
  baseURL?: string;
  /** Whether the model calls tools natively (default true). */
  supportsTools?: boolean;
  /** Name used in errors and telemetry, and to recognise this adapter's reasoning (default `openai-responses`). */
  provider?: string;
  /** Whether `text.format: json_schema` is accepted (default true); otherwise `json_object` is sent. */
  structuredOutputs?: boolean;
  /** `effort` → `reasoning.effort` (with `summary: "auto"`, so reasoning summaries stream). */
  thinking?: ThinkingSettings;
  /**
   * Ask for reasoning items' `encrypted_content` and send them back (default true). Turn off for a model
   * or gateway that refuses `include: ["reasoning.encrypted_content"]`.
   */
  encryptedReasoning?: boolean;
  /**
   * Store responses at the provider and continue each conversation with `previous_response_id`, sending
   * only the new items (default false: nothing stored, the whole conversation sent).
   */
  previousResponseId?: boolean;
}

/** How many stored responses are remembered for `previous_response_id`. */
const REMEMBERED_RESPONSES = 64;

/** A key for each prefix of `items` (index i: the first i items). */
function prefixKeys(items: readonly ResponsesInputItem[]): string[] {
  const hash = sha256();
  const keys = [hash.copy().digest("base64")];
  for (const item of items) {
    hash.update(JSON.stringify(item));
    hash.update("\n");
    keys.push(hash.copy().digest("base64"));
  }
  return keys;
}

/** A model behind the OpenAI Responses API. */
export class OpenAIResponsesLanguageModel implements LanguageModel {
  readonly provider: string;
  readonly modelId: string;
  readonly supportsTools: boolean;
  readonly #http: HttpSettings;
  readonly #settings: OpenAIResponsesSettings;
  /** Conversation prefix (through a response's output) → that response's id, for `previous_response_id`. */
  readonly #responses = new Map<string, string>();

  constructor(settings: OpenAIResponsesSettings) {
    this.provider = settings.provider ?? "openai-responses";
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

  /** The body, and what to remember of the conversation once the response is known. */
  #body(req: ModelRequest, stream: boolean): { body: ResponsesRequest; items: ResponsesInputItem[] } {
    const items = convertToResponsesInput(req.messages, this.provider, this.supportsTools);
    const chained = this.#settings.previousResponseId === true;
    const body: ResponsesRequest = { model: this.modelId, input: items, store: chained };
    if (chained) {
      const keys = prefixKeys(items);
      for (let i = items.length - 1; i > 0; i--) {
        const id = this.#responses.get(keys[i] as string);
        if (id === undefined) continue;
        body.previous_response_id = id;
        body.input = items.slice(i);
        break;
      }
    } else if (this.#settings.encryptedReasoning !== false) body.include = ["reasoning.encrypted_content"];
    const thinking = this.#settings.thinking;
    if (thinkingOn(thinking) && thinking.effort !== undefined) body.reasoning = { effort: thinking.effort, summary: "auto" };
    if (this.supportsTools && req.tools && req.tools.length > 0) {
      body.tools = req.tools.map((t) => ({
        type: "function",
        name: t.name,
        description: t.description || undefined,
        parameters: t.inputSchema,
        strict: false,
      }));
      const choice = req.toolChoice;
      if (choice !== undefined) body.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.toolName };
    }
    if (req.maxOutputTokens !== undefined) body.max_output_tokens = req.maxOutputTokens;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    const rf = req.responseFormat;
    if (rf)
      body.text = {
        format:
          rf.schema && this.#settings.structuredOutputs !== false
            ? { type: "json_schema", name: rf.name ?? "response", schema: rf.schema }
            : { type: "json_object" },
      };
    if (stream) body.stream = true;
    return { body, items };
  }

  /** Remember the conversation through this response's output, so the next request can continue it. */
  #remember(items: ResponsesInputItem[], content: AssistantPart[], responseId: string | undefined): void {
    if (this.#settings.previousResponseId !== true || responseId === undefined) return;
    const assistant: ModelMessage = { role: "assistant", content };
    const all = [...items, ...convertToResponsesInput([assistant], this.provider, this.supportsTools)];
    this.#responses.set(prefixKeys(all).at(-1) as string, responseId);
    if (this.#responses.size > REMEMBERED_RESPONSES) this.#responses.delete(this.#responses.keys().next().value as string);
  }

  #url(): string {
    return joinUrl(this.#settings.baseURL ?? "https://api.openai.com/v1", "responses");
  }

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const { body, items } = this.#body(req, false);
    const json = await postJson(this.#http, {
      url: this.#url(),
      headers: { ...req.headers, ...this.#headers() },
      body,
      signal: req.signal,
      onRetry: req.onRetry,
    });
    const wire = obj(json);
    if (wire.error !== undefined && wire.error !== null && wire.output === undefined)
      throw streamError(this.provider, wire.error, this.#http.secrets);
    const r = readResponse(json);
    if (r.status === "failed") throw streamError(this.provider, r.error ?? { message: "the response failed" }, this.#http.secrets);
    const content: AssistantPart[] = [];
    let calls = 0;
    for (const item of r.output) {
      if (item.type === "reasoning")
        content.push({
          type: "reasoning",
          provider: this.provider,
          text: item.text,
          itemId: item.id || undefined,
          redactedData: item.encryptedContent,
        });
      else if (item.type === "message" && item.text) content.push({ type: "text", text: item.text });
      else if (item.type === "function_call") {
        calls++;
        content.push({
          type: "tool-call",
          toolCallId: item.callId || generateToolCallId(),
          toolName: item.name,
          input: parseToolInput(item.arguments),
        });
      }
    }
    this.#remember(items, content, r.id);
    const out: ModelResponse = {
      content,
      finishReason: mapResponsesFinishReason(r.status, r.incompleteReason, calls > 0),
      usage: convertResponsesUsage(r.usage),
    };
    if (r.model) out.modelId = r.model;
    return out;
  }

  stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    const { body, items } = this.#body(req, true);
    const remember = this.#remember.bind(this);
    const provider = this.provider;
    const secrets = this.#http.secrets;
    return postStream(
      this.#http,
      { url: this.#url(), headers: { ...req.headers, ...this.#headers() }, body, signal: req.signal, onRetry: req.onRetry },
      async function* (events) {
        // The assistant message the loop will build from these parts, to key the stored response by.
        const content: AssistantPart[] = [];
        const texts = new Map<string, { type: "text"; text: string }>();
        for await (const part of decodeResponsesStream(events, provider, secrets, (id) =>
          remember(
            items,
            content.filter((p) => p.type !== "text" || p.text !== ""),
            id,
          ),
        )) {
          if (part.type === "text-start") {
            const text = { type: "text" as const, text: "" };
            texts.set(part.id, text);
            content.push(text);
          } else if (part.type === "text-delta") {
            const text = texts.get(part.id);
            if (text) text.text += part.delta;
          } else if (part.type === "reasoning" || part.type === "tool-call") {
            const { type: _t, ...rest } = part;
            content.push(
              part.type === "reasoning"
                ? { type: "reasoning", ...(rest as Omit<typeof part, "type">) }
                : { type: "tool-call", ...(rest as Omit<typeof part, "type">) },
            );
          }
          yield part;
        }
      },
    );
  }
}

/** An OpenAI model over the Responses API. */
export const createOpenAIResponses = (settings: OpenAIResponsesSettings): LanguageModel => new OpenAIResponsesLanguageModel(settings);
