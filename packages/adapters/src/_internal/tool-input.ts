/**
 * Reading tool-call arguments the model wrote. The loop wants an object; models and gateways deliver a
 * JSON string (OpenAI), an object (Anthropic, Gemini, some gateways), an empty string for "no arguments",
 * or now and then JSON wrapped in prose or a code fence.
 */
import { extractJsonObjects } from "@agentd/sdk/model";
import { isObj } from "./lenient.ts";

/**
 * The arguments as an object. Unreadable arguments become `{}` so the call still reaches the tool, whose
 * argument validation then tells the model what is missing (a failed call is an observation, not a crash).
 */
export function parseToolInput(raw: unknown): Record<string, unknown> {
  if (isObj(raw)) return raw;
  if (typeof raw !== "string") return {};
  const text = raw.trim();
  if (text === "") return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (isObj(v)) return v;
    // Some models double-encode: a JSON string holding the JSON object.
    if (typeof v === "string") return parseToolInput(v);
    return {};
  } catch {
    return extractJsonObjects(text)[0] ?? {};
  }
}

/** A fresh tool-call id for dialects that have none (Gemini) or gateways that send empty ones. */
export const generateToolCallId = (): string => `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
