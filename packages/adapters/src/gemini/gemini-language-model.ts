/**
 * The native Gemini adapter (`v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`):
 * `systemInstruction`, `functionDeclarations` with schemas cut to Gemini's subset, `functionCall` /
 * `functionResponse` parts, made-up tool-call ids where Gemini gives none, `usageMetadata`.
 *
 * Gemini 3 requires each function call's `thoughtSignature` back in later requests. Our message type has
 * no field for it, so the model remembers signatures by tool-call id (bounded) and puts them back itself.
 */
import type { LanguageModel, ModelRequest, ModelResponse, ModelStreamPart, TextPart, ToolCallPart } from "@agentd/sdk/model";
import { postJson, postStream } from "../_internal/http.ts";
import { type HttpSettings, joinUrl, type ProviderSettings, resolveHttpSettings } from "../_internal/settings.ts";
import { streamError } from "../_internal/stream-parts.ts";
import { parseToolInput } from "../_internal/tool-input.ts";
import { convertGeminiUsage } from "./convert-gemini-usage.ts";
import { convertJsonSchemaToGemini } from "./convert-json-schema-to-gemini.ts";
import { convertToGeminiMessages, SYNTHETIC_ID_PREFIX } from "./convert-to-gemini-messages.ts";
import { type GeminiGenerateContentRequest, readGenerateContentResponse } from "./gemini-api.ts";
import { decodeGeminiStream, type GeminiStreamContext, toolCallIdOf } from "./gemini-stream.ts";
import { mapGeminiFinishReason } from "./map-gemini-finish-reason.ts";

/** Settings of {@link createGemini}. */
export interface GeminiSettings extends ProviderSettings {
  /** Default `https://generativelanguage.googleapis.com` (the `v1beta/models/…` path is appended). */
  baseURL?: string;
}

const MAX_SIGNATURES = 1024;

/** A model behind the Gemini API. */
export class GeminiLanguageModel implements LanguageModel {
  readonly provider = "gemini";
  readonly modelId: string;
  readonly supportsTools = true;
  readonly #http: HttpSettings;
  readonly #settings: GeminiSettings;
  readonly #signatures = new Map<string, string>();
  readonly #ctx: GeminiStreamContext;

  constructor(settings: GeminiSettings) {
    this.modelId = settings.model.replace(/^models\//, "");
    this.#settings = settings;
    this.#http = resolveHttpSettings(this.provider, settings);
    this.#ctx = {
      provider: this.provider,
      secrets: this.#http.secrets,
      makeId: () => `${SYNTHETIC_ID_PREFIX}${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`,
      rememberSignature: (id, signature) => {
        this.#signatures.set(id, signature);
        // Oldest first out: a Map iterates in insertion order.
        if (this.#signatures.size > MAX_SIGNATURES) this.#signatures.delete(this.#signatures.keys().next().value as string);
      },
    };
  }

  #headers(): Record<string, string> {
    const h: Record<string, string> = { ...this.#settings.headers };
    if (this.#settings.apiKey) h["x-goog-api-key"] = this.#settings.apiKey;
    return h;
  }

  #body(req: ModelRequest): GeminiGenerateContentRequest {
    const prompt = convertToGeminiMessages(req.messages, (id) => this.#signatures.get(id));
    const body: GeminiGenerateContentRequest = { contents: prompt.contents };
    if (prompt.systemInstruction) body.systemInstruction = prompt.systemInstruction;
    if (req.tools && req.tools.length > 0) {
      body.tools = [
        {
          functionDeclarations: req.tools.map((t) => {
            const parameters = convertJsonSchemaToGemini(t.inputSchema);
            return { name: t.name, ...(t.description ? { description: t.description } : {}), ...(parameters ? { parameters } : {}) };
          }),
        },
      ];
      const c = req.toolChoice;
      if (c !== undefined)
        body.toolConfig = {
          functionCallingConfig:
            c === "auto"
              ? { mode: "AUTO" }
              : c === "none"
                ? { mode: "NONE" }
                : c === "required"
                  ? { mode: "ANY" }
                  : { mode: "ANY", allowedFunctionNames: [c.toolName] },
        };
    }
    const g: NonNullable<GeminiGenerateContentRequest["generationConfig"]> = {};
    if (req.maxOutputTokens !== undefined) g.maxOutputTokens = req.maxOutputTokens;
    if (req.temperature !== undefined) g.temperature = req.temperature;
    if (req.stopSequences && req.stopSequences.length > 0) g.stopSequences = req.stopSequences;
    if (req.responseFormat) {
      g.responseMimeType = "application/json";
      const schema = convertJsonSchemaToGemini(req.responseFormat.schema);
      if (schema) g.responseSchema = schema;
    }
    if (Object.keys(g).length > 0) body.generationConfig = g;
    return body;
  }

  #url(method: "generateContent" | "streamGenerateContent"): string {
    const base = joinUrl(this.#settings.baseURL ?? "https://generativelanguage.googleapis.com", "v1beta/models");
    const url = `${base}/${encodeURIComponent(this.modelId)}:${method}`;
    return method === "streamGenerateContent" ? `${url}?alt=sse` : url;
  }

  async generate(req: ModelRequest): Promise<ModelResponse> {
    const json = await postJson(this.#http, {
      url: this.#url("generateContent"),
      headers: this.#headers(),
      body: this.#body(req),
      signal: req.signal,
    });
    const r = readGenerateContentResponse(json);
    if (r.error !== undefined) throw streamError(this.provider, r.error, this.#http.secrets);
    const content: Array<TextPart | ToolCallPart> = [];
    for (const p of r.parts) {
      if (p.type === "text") {
        const last = content[content.length - 1];
        if (last?.type === "text") last.text += p.text;
        else if (p.text) content.push({ type: "text", text: p.text });
      } else content.push({ type: "tool-call", toolCallId: toolCallIdOf(p, this.#ctx), toolName: p.name, input: parseToolInput(p.args) });
    }
    const hasCalls = content.some((p) => p.type === "tool-call");
    const out: ModelResponse = {
      content,
      finishReason: mapGeminiFinishReason(r.finishReason, hasCalls, r.blockReason !== undefined),
      usage: convertGeminiUsage(r.usage),
    };
    if (r.model) out.modelId = r.model;
    return out;
  }

  stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    return postStream(
      this.#http,
      { url: this.#url("streamGenerateContent"), headers: this.#headers(), body: this.#body(req), signal: req.signal },
      (events) => decodeGeminiStream(events, this.#ctx),
    );
  }
}

/** A native Gemini model. */
export const createGemini = (settings: GeminiSettings): LanguageModel => new GeminiLanguageModel(settings);
