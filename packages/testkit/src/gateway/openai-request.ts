/**
 * Reading an OpenAI-compatible `POST /v1/chat/completions` body: checks the mistakes real endpoints
 * refuse (missing model/messages, arguments sent as objects, tool messages that answer no tool call,
 * tool calls left unanswered, bad tool names) and normalises the conversation.
 */
import { isObject, problem, runParser, type ParseResult, type ParsedRequest } from "./dialect.ts";
import { promptPrefixes } from "./prompt-cache.ts";
import type { NormalizedMessage, NormalizedToolCall } from "./types.ts";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);
/** OpenAI's function name rule. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function contentText(content: unknown, where: string): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) problem(`${where}.content: expected a string or an array of content parts`);
  return content
    .map((part, index) => {
      if (!isObject(part) || typeof part.type !== "string") problem(`${where}.content[${index}]: a content part needs a "type"`);
      if (part.type !== "text") return "";
      if (typeof part.text !== "string") problem(`${where}.content[${index}].text: expected a string`);
      return part.text;
    })
    .join("");
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function toolCalls(value: unknown, where: string): NormalizedToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) problem(`${where}.tool_calls: expected an array`);
  return value.map((call, index) => {
    const at = `${where}.tool_calls[${index}]`;
    if (!isObject(call) || typeof call.id !== "string" || call.id === "") problem(`${at}.id: expected a non-empty string`);
    if (call.type !== "function") problem(`${at}.type: expected "function"`);
    const fn = call.function;
    if (!isObject(fn) || typeof fn.name !== "string") problem(`${at}.function.name: expected a string`);
    if (typeof fn.arguments !== "string") problem(`${at}.function.arguments: expected a JSON-encoded string, got ${typeof fn.arguments}`);
    return { id: call.id, name: fn.name, arguments: parseArguments(fn.arguments) };
  });
}

function toolNames(tools: unknown): string[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) problem("tools: expected an array");
  return tools.map((tool, index) => {
    if (!isObject(tool) || tool.type !== "function" || !isObject(tool.function))
      problem(`tools[${index}]: expected { type: "function", function: {...} }`);
    const name = tool.function.name;
    if (typeof name !== "string" || !TOOL_NAME.test(name))
      problem(`tools[${index}].function.name: ${JSON.stringify(name)} must match ^[a-zA-Z0-9_-]{1,64}$`);
    if (tool.function.parameters !== undefined && !isObject(tool.function.parameters))
      problem(`tools[${index}].function.parameters: expected a JSON Schema object`);
    return name;
  });
}

function messages(value: unknown): NormalizedMessage[] {
  if (!Array.isArray(value) || value.length === 0) problem("messages: expected a non-empty array");
  const out: NormalizedMessage[] = [];
  // Tool calls of the last assistant message still waiting for their `tool` messages.
  let pending = new Map<string, string>();
  value.forEach((message, index) => {
    const where = `messages[${index}]`;
    if (!isObject(message) || typeof message.role !== "string" || !ROLES.has(message.role))
      problem(`${where}.role: expected one of ${[...ROLES].join(", ")}`);
    const role = message.role;
    if (role !== "tool" && pending.size > 0)
      problem(
        `${where}: an assistant message with tool_calls must be followed by tool messages for each tool_call_id; missing: ${[...pending.keys()].join(", ")}`,
      );
    if (role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string" || id === "") problem(`${where}.tool_call_id: expected a non-empty string`);
      const name = pending.get(id);
      if (name === undefined)
        problem(
          `${where}: tool message answers tool_call_id ${JSON.stringify(id)}, which no preceding assistant tool call has (or it was already answered)`,
        );
      pending.delete(id);
      out.push({
        role: "tool",
        text: "",
        toolCalls: [],
        toolResults: [{ toolCallId: id, name, content: contentText(message.content, where) }],
      });
      return;
    }
    const calls = role === "assistant" ? toolCalls(message.tool_calls, where) : [];
    if (role === "assistant" && calls.length === 0 && (message.content === undefined || message.content === null))
      problem(`${where}.content: an assistant message needs content or tool_calls`);
    if (role !== "assistant" && (message.content === undefined || message.content === null))
      problem(`${where}.content: required for role ${role}`);
    pending = new Map(calls.map((call) => [call.id as string, call.name]));
    out.push({
      role: role === "developer" ? "system" : (role as NormalizedMessage["role"]),
      text: contentText(message.content, where),
      toolCalls: calls,
      toolResults: [],
    });
  });
  if (pending.size > 0)
    problem(`messages: the last assistant message has tool_calls without tool messages: ${[...pending.keys()].join(", ")}`);
  return out;
}

/** Read and check a chat completions body. */
export function parseOpenAiRequest(body: unknown): ParseResult {
  const partial: Partial<ParsedRequest> = {};
  return runParser(partial, () => {
    if (!isObject(body)) problem("the request body must be a JSON object");
    if (typeof body.model !== "string" || body.model === "") problem("model: required (a non-empty string)");
    partial.model = body.model;
    if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") problem("stream: expected a boolean");
    partial.stream = body.stream === true;
    partial.tools = toolNames(body.tools);
    const options = body.stream_options;
    if (options !== undefined && options !== null && !partial.stream) problem("stream_options: only allowed when stream is true");
    const includeUsage = isObject(options) && options.include_usage === true;
    partial.messages = messages(body.messages);
    const effort = body.reasoning_effort;
    if (effort !== undefined && effort !== null && typeof effort !== "string") problem("reasoning_effort: expected a string");
    return {
      model: partial.model,
      stream: partial.stream,
      tools: partial.tools,
      messages: partial.messages,
      includeUsage,
      // Servers render tool definitions ahead of the conversation: they belong to the first prefix.
      prefixes: promptPrefixes({ tools: body.tools ?? null }, body.messages as unknown[]),
      thinking: typeof effort === "string" && effort !== "none",
    };
  });
}
