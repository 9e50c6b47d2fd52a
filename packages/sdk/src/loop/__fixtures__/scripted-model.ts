/**
 * A scripted in-memory LanguageModel for loop tests: each request takes the next step of the script.
 * A step is a response, or a function of the request (which may wait on the request's signal). It
 * records every request, and streams a response as text and tool-call parts when asked to stream.
 */
import type { LanguageModel, ModelRequest, ModelResponse, ModelStreamPart, ToolCallPart, Usage } from "../../model/language-model.ts";

/** One scripted reply. */
export type Step = ModelResponse | ((request: ModelRequest, index: number) => ModelResponse | Promise<ModelResponse>);

/** The usage every helper reply reports unless told otherwise. */
export const STEP_USAGE: Usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** A final text reply. */
export const reply = (text: string, usage: Usage = STEP_USAGE): ModelResponse => ({
  content: [{ type: "text", text }],
  finishReason: "stop",
  usage,
});

let nextId = 0;
/** A reply that asks for tool calls (`name` is what the model writes: provider-safe or qualified). */
export const callTools = (calls: Array<[name: string, input: Record<string, unknown>]>, usage: Usage = STEP_USAGE): ModelResponse => ({
  content: calls.map(([toolName, input]): ToolCallPart => ({ type: "tool-call", toolCallId: `call_${++nextId}`, toolName, input })),
  finishReason: "tool-calls",
  usage,
});

/** A step that never answers: it rejects only when the request's signal aborts, and reports that signal. */
export const hangUntilAborted =
  (seen: (signal: AbortSignal) => void): Step =>
  (request) =>
    new Promise<ModelResponse>((_resolve, reject) => {
      const signal = request.signal as AbortSignal;
      seen(signal);
      signal.addEventListener("abort", () => reject(new Error("request aborted")), { once: true });
    });

/** Build a scripted model. */
export function scriptedModel(
  steps: Step[],
  options: { supportsTools?: boolean } = {},
): LanguageModel & { requests: ModelRequest[]; generateCalls: number; streamCalls: number } {
  const requests: ModelRequest[] = [];
  const next = async (request: ModelRequest): Promise<ModelResponse> => {
    const index = requests.length;
    requests.push(request);
    const step = steps[index];
    if (step === undefined) throw new Error(`scripted model: no step ${index + 1} (script has ${steps.length})`);
    return typeof step === "function" ? await step(request, index) : step;
  };
  const model = {
    provider: "scripted",
    modelId: "scripted-1",
    supportsTools: options.supportsTools ?? true,
    requests,
    generateCalls: 0,
    streamCalls: 0,
    generate(request: ModelRequest) {
      model.generateCalls++;
      return next(request);
    },
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      model.streamCalls++;
      const response = await next(request);
      for (const [i, part] of response.content.entries()) {
        if (part.type === "text") {
          const id = `t${i}`;
          yield { type: "text-start", id };
          // Three-character deltas, so a test sees the text arrive in pieces.
          for (let k = 0; k < part.text.length; k += 3) yield { type: "text-delta", id, delta: part.text.slice(k, k + 3) };
          yield { type: "text-end", id, signature: part.signature };
        } else if (part.type === "reasoning") {
          const id = `r${i}`;
          yield { type: "reasoning-start", id };
          yield { type: "reasoning-delta", id, delta: part.text };
          yield { type: "reasoning-end", id };
          const { type: _t, ...reasoning } = part;
          yield { type: "reasoning", ...reasoning };
        } else {
          yield { type: "tool-call-start", id: part.toolCallId, toolName: part.toolName };
          yield { type: "tool-call-delta", id: part.toolCallId, delta: JSON.stringify(part.input) };
          yield { type: "tool-call-end", id: part.toolCallId };
          const { type: _t, ...call } = part;
          yield { type: "tool-call", ...call };
        }
      }
      yield { type: "finish", finishReason: response.finishReason, usage: response.usage };
    },
  };
  return model;
}
