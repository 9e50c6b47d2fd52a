/**
 * The native Gemini adapter (`v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`):
 * `systemInstruction`, `functionDeclarations` with schemas cut to Gemini's subset, `functionCall` /
 * `functionResponse` parts, made-up tool-call ids where Gemini gives none, `usageMetadata`, `thinkingConfig`.
 *
 * Gemini 3 requires each function call's `thoughtSignature` back in later requests: the signature rides
 * on the part in our message type (not in a table of this instance), so it survives a checkpoint and a
 * hand-off to another process. Explicit context caching (`cachedContents`) is not used: it needs a
 * resource created, kept alive and deleted per prefix, with a minimum size, while the implicit cache of
 * Gemini 2.5+ already discounts a repeated prefix, which our requests keep byte-stable.
 */
import type { AssistantPart, LanguageModel, ModelRequest, ModelResponse, ModelStreamPart } from "@agentd/sdk/model";
import { postJson, postStream } from "../_internal/http.ts";
import { type HttpSettings, joinUrl, type ProviderSettings, resolveHttpSettings } from "../_internal/settings.ts";
import { streamError } from "../_internal/stream-parts.ts";
import { type ThinkingSettings, thinkingOn } from "../_internal/thinking.ts";
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
  /** `thinkingConfig`: budget (`adaptive` = dynamic), thought summaries included when thinking is on. */
  thinking?: ThinkingSettings;
}

/** `generationConfig.thinkingConfig` for the settings. */
function thinkingConfig(t: ThinkingSettings | undefined): NonNullable<GeminiGenerateContentRequest["generationConfig"]>["thinkingConfig"] {
  if (t === undefined) return undefined;
  if (!thinkingOn(t)) return { thinkingBudget: 0 };
  const config: { thinkingBudget?: number; includeThoughts?: boolean; thinkingLevel?: string } = { includeThoughts: true };
  if (t.adaptive) config.thinkingBudget = -1;
  else if (t.budgetTokens !== undefined) config.thinkingBudget = t.budgetTokens;
  if (t.effort !== undefined) config.thinkingLevel = t.effort;
  return config;
}

/** A model behind the Gemini API. */
export class GeminiLanguageModel implements LanguageModel {
  readonly provider = "gemini";
  readonly modelId: string;
  readonly supportsTools = true;
  readonly #http: HttpSettings;
  readonly #settings: GeminiSettings;
  readonly #ctx: GeminiStreamContext;

  constructor(settings: GeminiSettings) {
    this.modelId = settings.model.replace(/^models\//, "");
    this.#settings = settings;
    this.#http = resolveHttpSettings(this.provider, settings, "https://generativelanguage.googleapis.com");
    this.#ctx = {
      provider: this.provider,
      secrets: this.#http.secrets,
      makeId: () => `${SYNTHETIC_ID_PREFIX}${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`,
    };
  }

  #headers(): Record<string, string> {
    const h: Record<string, string> = { ...this.#settings.headers };
    if (this.#settings.apiKey) h["x-goog-api-key"] = this.#settings.apiKey;
    return h;
  }

  #body(req: ModelRequest): GeminiGenerateContentRequest {
    const prompt = convertToGeminiMessages(req.messages);
    const body: GeminiGenerateContentRequest = { contents: prompt.contents };
    if (prompt.systemInstruction) body.systemInstruction = prompt.systemInstruction;
    if (req.tools && req.tools.length > 0) {
      body.tools = [
        {
          functionDeclarations: req.tools.map((t) => {
            const parameters = convertJsonSchemaToGemini(t.inputSchema);
            return { name: t.name, description: t.description || undefined, parameters: parameters || undefined };
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
    const thinking = thinkingConfig(this.#settings.thinking);
    if (thinking) g.thinkingConfig = thinking;
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
      headers: { ...req.headers, ...this.#headers() },
      body: this.#body(req),
      signal: req.signal,
      onRetry: req.onRetry,
    });
    const r = readGenerateContentResponse(json);
    if (r.error !== undefined) throw streamError(this.provider, r.error, this.#http.secrets);
    const content: AssistantPart[] = [];
    for (const p of r.parts) {
      const signature = p.thoughtSignature ? { signature: p.thoughtSignature } : {};
      const last = content[content.length - 1];
      if (p.type === "text" && p.thought) content.push({ type: "reasoning", provider: this.provider, text: p.text, ...signature });
      else if (p.type === "text") {
        // Consecutive text merges, until a signature closes a part (it goes back on that part).
        if (last?.type === "text" && last.signature === undefined) {
          last.text += p.text;
          if (p.thoughtSignature) last.signature = p.thoughtSignature;
        } else if (p.text || p.thoughtSignature) content.push({ type: "text", text: p.text, ...signature });
      } else
        content.push({
          type: "tool-call",
          toolCallId: toolCallIdOf(p, this.#ctx),
          toolName: p.name,
          input: parseToolInput(p.args),
          ...signature,
        });
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
      {
        url: this.#url("streamGenerateContent"),
        headers: { ...req.headers, ...this.#headers() },
        body: this.#body(req),
        signal: req.signal,
        onRetry: req.onRetry,
      },
      (events) => decodeGeminiStream(events, this.#ctx),
    );
  }
}

/** A native Gemini model. */
export const createGemini = (settings: GeminiSettings): LanguageModel => new GeminiLanguageModel(settings);
