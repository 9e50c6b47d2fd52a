/**
 * The OpenAI Responses wire shapes (`POST /responses`): what we send (strict, the shapes of the official
 * `openai` package's `ResponseCreateParams`) and what we read (lenient: every field may be missing).
 */
import { arr, num, obj, str } from "../_internal/lenient.ts";

/** An input item: a message, a function call sent back, its output, or a reasoning item sent back. */
export type ResponsesInputItem =
  | { role: "system" | "developer" | "user"; content: string }
  | { role: "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  | { type: "reasoning"; id: string; summary: Array<{ type: "summary_text"; text: string }>; encrypted_content?: string };

/** A function tool (flat, unlike chat completions' `{ function: {…} }`). */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** The request body. */
export interface ResponsesRequest {
  model: string;
  input: ResponsesInputItem[];
  instructions?: string;
  tools?: ResponsesFunctionTool[];
  tool_choice?: "auto" | "none" | "required" | { type: "function"; name: string };
  max_output_tokens?: number;
  temperature?: number;
  text?: { format: { type: "json_object" } | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean } };
  reasoning?: { effort?: "minimal" | "low" | "medium" | "high" | "xhigh" | "max"; summary?: "auto" | "concise" | "detailed" };
  /** What we ask to be included: only the encrypted reasoning. */
  include?: Array<"reasoning.encrypted_content">;
  store: boolean;
  previous_response_id?: string;
  /** Only ever `true` (absent: a whole response). */
  stream?: true;
}

/** Token counts as the wire reports them. */
export interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  /** `input_tokens_details.cached_tokens`. */
  cached_tokens?: number;
  /** `output_tokens_details.reasoning_tokens`. */
  reasoning_tokens?: number;
}

/** One output item, read leniently. */
export type ReadOutputItem =
  | { type: "reasoning"; id: string; text: string; encryptedContent?: string }
  | { type: "message"; text: string }
  | { type: "function_call"; callId: string; name: string; arguments: string }
  | { type: "other" };

/** A response, read leniently. */
export interface ReadResponse {
  id?: string;
  model?: string;
  status?: string;
  incompleteReason?: string;
  output: ReadOutputItem[];
  usage?: ResponsesUsage;
  error?: unknown;
}

/** Read the usage object. */
export function readUsage(value: unknown): ResponsesUsage | undefined {
  if (value === undefined || value === null) return undefined;
  const u = obj(value);
  const out: ResponsesUsage = {};
  const set = (k: keyof ResponsesUsage, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set("input_tokens", num(u.input_tokens));
  set("output_tokens", num(u.output_tokens));
  set("total_tokens", num(u.total_tokens));
  set("cached_tokens", num(obj(u.input_tokens_details).cached_tokens));
  set("reasoning_tokens", num(obj(u.output_tokens_details).reasoning_tokens));
  return out;
}

/** Read one output item. */
export function readOutputItem(value: unknown): ReadOutputItem {
  const item = obj(value);
  switch (item.type) {
    case "reasoning": {
      const text = arr(item.summary)
        .map((s) => str(obj(s).text) ?? "")
        .join("\n\n");
      const encrypted = str(item.encrypted_content);
      return { type: "reasoning", id: str(item.id) ?? "", text, encryptedContent: encrypted };
    }
    case "message":
      return {
        type: "message",
        text: arr(item.content)
          .map((c) => (obj(c).type === "output_text" ? (str(obj(c).text) ?? "") : ""))
          .join(""),
      };
    case "function_call":
      return { type: "function_call", callId: str(item.call_id) ?? "", name: str(item.name) ?? "", arguments: str(item.arguments) ?? "" };
    default:
      return { type: "other" };
  }
}

/** Read a whole response (the body of a non-streamed request, or a `response.*` event's `response`). */
export function readResponse(value: unknown): ReadResponse {
  const r = obj(value);
  const out: ReadResponse = { output: arr(r.output).map(readOutputItem) };
  const id = str(r.id);
  if (id) out.id = id;
  const model = str(r.model);
  if (model) out.model = model;
  const status = str(r.status);
  if (status) out.status = status;
  const reason = str(obj(r.incomplete_details).reason);
  if (reason) out.incompleteReason = reason;
  const usage = readUsage(r.usage);
  if (usage) out.usage = usage;
  if (r.error !== undefined && r.error !== null) out.error = r.error;
  return out;
}
