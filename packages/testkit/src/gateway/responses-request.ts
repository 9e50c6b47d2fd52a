/**
 * Reading an OpenAI Responses `POST /v1/responses` body the way the API does: flat function tools
 * (`{ type: "function", name, parameters }`), `input` as a string or a list of items (messages,
 * `function_call`, `function_call_output`, `reasoning`), `instructions`, `text.format` instead of
 * `response_format`, `max_output_tokens` of at least 16. A `function_call_output` must answer a
 * `function_call` earlier in the conversation (this input, or the stored one `previous_response_id` names),
 * and every `function_call` needs its output. Messages follow the real API's wording.
 */
import { isObject, problem, runParser, type ParseResult, type ParsedRequest } from "./dialect.ts";
import { promptPrefixes } from "./prompt-cache.ts";
import type { NormalizedMessage } from "./types.ts";

/** OpenAI's function name rule. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MESSAGE_ROLES = new Set(["user", "system", "developer", "assistant"]);
const INCLUDABLE = new Set([
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
  "file_search_call.results",
  "web_search_call.action.sources",
  "code_interpreter_call.outputs",
  "computer_call_output.output.image_url",
  "message.input_image.image_url",
]);
/** Chat completions parameters the Responses API refuses, and where each moved. */
const MOVED: Record<string, string> = {
  messages: "In the Responses API, send the conversation as 'input'.",
  response_format: "In the Responses API, this parameter has moved to 'text.format'.",
  max_tokens: "In the Responses API, use 'max_output_tokens'.",
  reasoning_effort: "In the Responses API, use 'reasoning.effort'.",
};

/** What the responses codec keeps of a parsed request for rendering and storing. */
export interface ResponsesRequestData {
  /** The whole conversation's input items: the stored one `previous_response_id` named, then this input. */
  conversation: Record<string, unknown>[];
  store: boolean;
  /** `include` asked for `reasoning.encrypted_content`. */
  encryptedReasoning: boolean;
  previousResponseId: string | null;
  tools: unknown[];
  reasoning: Record<string, unknown> | null;
  instructions: string | null;
}

const invalid = (param: string, detail: string): never => problem(`Invalid '${param}': ${detail}`);

function partsText(content: unknown, role: string, where: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return invalid(`${where}.content`, "expected a string or an array of content parts.");
  const allowed = role === "assistant" ? ["output_text", "refusal"] : ["input_text", "input_image", "input_file"];
  return content
    .map((part, index) => {
      const at = `${where}.content[${index}]`;
      if (!isObject(part) || !allowed.includes(part.type as string))
        problem(
          `Invalid value: '${String(isObject(part) ? part.type : part)}'. Supported values are: ${allowed.map((a) => `'${a}'`).join(", ")}. (${at}.type)`,
        );
      if ((part.type === "input_text" || part.type === "output_text") && typeof part.text !== "string")
        invalid(`${at}.text`, "expected a string.");
      return typeof part.text === "string" ? part.text : "";
    })
    .join("");
}

function toolNames(tools: unknown): string[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) return invalid("tools", "expected an array.");
  return tools.map((tool, index) => {
    if (!isObject(tool) || typeof tool.type !== "string") return invalid(`tools[${index}].type`, "required.");
    if (tool.type !== "function")
      return problem(`Invalid value: '${tool.type}'. This fake serves function tools only. (tools[${index}].type)`);
    if (tool.name === undefined) return problem(`Missing required parameter: 'tools[${index}].name'.`);
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name))
      return invalid(
        `tools[${index}].name`,
        `string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      );
    if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters))
      return invalid(`tools[${index}].parameters`, "expected an object.");
    return tool.name;
  });
}

/** Normalise the conversation and check its call ids; `prior` is the stored conversation before this input. */
function readItems(items: Record<string, unknown>[], priorCount: number): NormalizedMessage[] {
  const out: NormalizedMessage[] = [];
  const calls = new Map<string, string>();
  const answered = new Set<string>();
  items.forEach((item, index) => {
    const where = index < priorCount ? `previous_response.input[${index}]` : `input[${index - priorCount}]`;
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message": {
        const role = item.role;
        if (typeof role !== "string" || !MESSAGE_ROLES.has(role))
          invalid(`${where}.role`, `expected one of ${[...MESSAGE_ROLES].join(", ")}.`);
        const text = partsText(item.content, role as string, where);
        out.push({ role: role === "developer" ? "system" : (role as NormalizedMessage["role"]), text, toolCalls: [], toolResults: [] });
        return;
      }
      case "function_call": {
        if (typeof item.call_id !== "string" || item.call_id === "") problem(`Missing required parameter: '${where}.call_id'.`);
        if (typeof item.name !== "string") problem(`Missing required parameter: '${where}.name'.`);
        if (typeof item.arguments !== "string")
          invalid(
            `${where}.arguments`,
            `expected a string, but got ${Array.isArray(item.arguments) ? "an array" : typeof item.arguments} instead.`,
          );
        calls.set(item.call_id as string, item.name as string);
        let args: unknown = item.arguments;
        try {
          args = JSON.parse(item.arguments as string);
        } catch {
          // kept as the string sent
        }
        const last = out.at(-1);
        const call = { id: item.call_id as string, name: item.name as string, arguments: args };
        if (last?.role === "assistant") last.toolCalls.push(call);
        else out.push({ role: "assistant", text: "", toolCalls: [call], toolResults: [] });
        return;
      }
      case "function_call_output": {
        const id = item.call_id;
        if (typeof id !== "string" || id === "") problem(`Missing required parameter: '${where}.call_id'.`);
        const name = calls.get(id as string);
        if (name === undefined) problem(`No tool call found for function call output with call_id ${String(id)}.`);
        answered.add(id as string);
        const output = typeof item.output === "string" ? item.output : JSON.stringify(item.output ?? null);
        out.push({
          role: "tool",
          text: "",
          toolCalls: [],
          toolResults: [{ toolCallId: id as string, name: name as string, content: output }],
        });
        return;
      }
      case "reasoning": {
        if (typeof item.id !== "string" || item.id === "") problem(`Missing required parameter: '${where}.id'.`);
        if (!Array.isArray(item.summary)) problem(`Missing required parameter: '${where}.summary'.`);
        if (item.encrypted_content !== undefined && item.encrypted_content !== null && typeof item.encrypted_content !== "string")
          invalid(`${where}.encrypted_content`, "expected a string.");
        return;
      }
      default:
        problem(
          `Invalid value: '${String(type)}'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning'. (${where}.type)`,
        );
    }
  });
  for (const id of calls.keys()) if (!answered.has(id)) problem(`No tool output found for function call ${id}.`);
  return out;
}

/** `tool_choice`: a mode, or a flat `{ type: "function", name }` (chat completions nests the name). */
function checkToolChoice(choice: unknown): void {
  if (choice === undefined || choice === null || choice === "auto" || choice === "none" || choice === "required") return;
  if (typeof choice === "string") invalid("tool_choice", `expected one of 'auto', 'none', 'required', got '${choice}'.`);
  if (!isObject(choice)) invalid("tool_choice", "expected a string or an object.");
  if ((choice as Record<string, unknown>).type === "function" && typeof (choice as Record<string, unknown>).name !== "string")
    problem("Missing required parameter: 'tool_choice.name'.");
}

/** `text.format`: text, `json_object`, or `json_schema` with a name and a schema. */
function checkTextFormat(text: unknown): void {
  if (text === undefined || text === null) return;
  if (!isObject(text)) invalid("text", "expected an object.");
  const format = (text as Record<string, unknown>).format;
  if (format === undefined) return;
  if (!isObject(format) || !["text", "json_object", "json_schema"].includes(format.type as string))
    problem(
      `Invalid value: '${String(isObject(format) ? format.type : format)}'. Supported values are: 'text', 'json_object' and 'json_schema'. (text.format.type)`,
    );
  if (format.type === "json_schema") {
    if (typeof format.name !== "string" || !TOOL_NAME.test(format.name)) problem("Missing required parameter: 'text.format.name'.");
    if (!isObject(format.schema)) problem("Missing required parameter: 'text.format.schema'.");
  }
}

/** Read and check a Responses body; `stored` resolves `previous_response_id` to its conversation. */
export function parseResponsesRequest(body: unknown, stored: (id: string) => Record<string, unknown>[] | undefined): ParseResult {
  const partial: Partial<ParsedRequest> = {};
  return runParser(partial, () => {
    if (!isObject(body)) problem("the request body must be a JSON object");
    for (const [param, hint] of Object.entries(MOVED)) if (body[param] !== undefined) problem(`Unsupported parameter: '${param}'. ${hint}`);
    if (typeof body.model !== "string" || body.model === "") problem("Missing required parameter: 'model'.");
    partial.model = body.model;
    if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") invalid("stream", "expected a boolean.");
    partial.stream = body.stream === true;
    partial.tools = toolNames(body.tools);
    const max = body.max_output_tokens;
    if (max !== undefined && max !== null && (!Number.isInteger(max) || (max as number) < 16))
      invalid("max_output_tokens", `integer below minimum value. Expected a value >= 16, but got ${String(max)} instead.`);
    checkToolChoice(body.tool_choice);
    checkTextFormat(body.text);
    const include = body.include ?? [];
    if (!Array.isArray(include)) invalid("include", "expected an array.");
    for (const value of include as unknown[]) if (!INCLUDABLE.has(value as string)) problem(`Invalid value: '${String(value)}'. (include)`);
    if (body.store !== undefined && body.store !== null && typeof body.store !== "boolean") invalid("store", "expected a boolean.");
    if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== "string")
      invalid("instructions", "expected a string.");
    const previous = body.previous_response_id ?? null;
    if (previous !== null && typeof previous !== "string") invalid("previous_response_id", "expected a string.");
    const prior = previous === null ? [] : stored(previous as string);
    if (prior === undefined) problem(`Previous response with id '${String(previous)}' not found.`);
    const input = body.input;
    let items: Record<string, unknown>[];
    if (typeof input === "string") items = [{ type: "message", role: "user", content: input }];
    else if (Array.isArray(input) && input.length > 0)
      items = input.map((item, index) => (isObject(item) ? item : invalid(`input[${index}]`, "expected an object.")));
    else return problem("Missing required parameter: 'input'.");
    const conversation = [...(prior as Record<string, unknown>[]), ...items];
    const messages = readItems(conversation, (prior as unknown[]).length);
    partial.messages =
      typeof body.instructions === "string"
        ? [{ role: "system", text: body.instructions, toolCalls: [], toolResults: [] }, ...messages]
        : messages;
    const reasoning = isObject(body.reasoning) ? body.reasoning : null;
    const data: ResponsesRequestData = {
      conversation,
      store: body.store !== false,
      encryptedReasoning: (include as unknown[]).includes("reasoning.encrypted_content"),
      previousResponseId: previous as string | null,
      tools: Array.isArray(body.tools) ? body.tools : [],
      reasoning,
      instructions: typeof body.instructions === "string" ? body.instructions : null,
    };
    return {
      model: partial.model,
      stream: partial.stream,
      tools: partial.tools,
      messages: partial.messages,
      includeUsage: true,
      prefixes: promptPrefixes({ tools: body.tools ?? null, instructions: body.instructions ?? null }, conversation),
      thinking: typeof reasoning?.effort === "string" && reasoning.effort !== "none",
      dialectData: data,
    };
  });
}
