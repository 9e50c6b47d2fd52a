/**
 * Gemini API wire shapes (`v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`):
 * what we send (strict) and lenient readers for `GenerateContentResponse`, which is also the shape of
 * every streamed chunk.
 */
import { arr, num, obj, str } from "../_internal/lenient.ts";

/** A content part we send. `thoughtSignature` is a sibling of the part it belongs to. */
export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };

/** A turn: `user` (also carries function responses) or `model`. */
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

/** The request body. */
export interface GeminiGenerateContentRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{
    functionDeclarations: Array<{ name: string; description?: string; parameters?: Record<string, unknown> }>;
  }>;
  toolConfig?: { functionCallingConfig: { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: string[] } };
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    stopSequences?: string[];
    responseMimeType?: string;
    responseSchema?: Record<string, unknown>;
    thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean; thinkingLevel?: string };
  };
}

/** `usageMetadata` as reported. Thinking tokens are billed as output. */
export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
  /** Of `promptTokenCount`, served from the (implicit or explicit) context cache. */
  cachedContentTokenCount?: number;
}

/** A part we read back: text (a thought summary when `thought`) or a function call. */
export type ReadPart =
  | { type: "text"; text: string; thought?: boolean; thoughtSignature?: string }
  | { type: "function-call"; id?: string; name: string; args: unknown; thoughtSignature?: string };

/** What we read from a response or a streamed chunk. */
export interface ReadGenerateContentResponse {
  model?: string;
  parts: ReadPart[];
  finishReason?: string;
  /** Set when the prompt itself was blocked (no candidates). */
  blockReason?: string;
  usage?: GeminiUsageMetadata;
  error?: unknown;
}

function readPart(v: unknown): ReadPart | undefined {
  const p = obj(v);
  const signature = str(p.thoughtSignature);
  if (p.functionCall !== undefined) {
    const fc = obj(p.functionCall);
    const name = str(fc.name);
    if (!name) return undefined;
    const out: ReadPart = { type: "function-call", id: str(fc.id) || undefined, name, args: fc.args };
    // Gemini 3 puts the signature beside the call; some 2.x builds put it inside.
    const sig = signature ?? str(fc.thoughtSignature);
    if (sig) out.thoughtSignature = sig;
    return out;
  }
  if (typeof p.text === "string" || signature) {
    const out: ReadPart = { type: "text", text: str(p.text) ?? "" };
    if (p.thought === true) out.thought = true;
    if (signature) out.thoughtSignature = signature;
    return out;
  }
  return undefined;
}

/** Read a response (or one stream chunk: the same shape). */
export function readGenerateContentResponse(body: unknown): ReadGenerateContentResponse {
  const b = obj(body);
  const candidate = obj(arr(b.candidates)[0]);
  const u = b.usageMetadata === undefined || b.usageMetadata === null ? undefined : obj(b.usageMetadata);
  return {
    model: str(b.modelVersion),
    parts: arr(obj(candidate.content).parts)
      .map(readPart)
      .filter((p): p is ReadPart => p !== undefined),
    finishReason: str(candidate.finishReason),
    blockReason: str(obj(b.promptFeedback).blockReason),
    usage: u && {
      promptTokenCount: num(u.promptTokenCount),
      candidatesTokenCount: num(u.candidatesTokenCount),
      thoughtsTokenCount: num(u.thoughtsTokenCount),
      totalTokenCount: num(u.totalTokenCount),
      cachedContentTokenCount: num(u.cachedContentTokenCount),
    },
    error: b.error ?? undefined,
  };
}
