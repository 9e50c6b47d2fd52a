/**
 * Reading an Anthropic `POST /v1/messages` body: checks what the real API refuses (missing
 * `anthropic-version`, `model`, `max_tokens`, `messages`; a `system` role inside messages; tool_use input
 * that is not an object; tool_result blocks that answer no tool_use of the previous assistant message;
 * tool_use blocks left unanswered) and normalises the conversation.
 */
import { thinkingEnabled } from "./anthropic-checks.ts";
import { asText, isObject, problem, runParser, type ParseResult, type ParsedRequest } from "./dialect.ts";
import { promptPrefixes } from "./prompt-cache.ts";
import type { NormalizedMessage, NormalizedToolCall, NormalizedToolResult } from "./types.ts";

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

function textBlocks(value: unknown, where: string): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) problem(`${where}: expected a string or an array of content blocks`);
  return value
    .map((block, index) => {
      if (!isObject(block) || typeof block.type !== "string") problem(`${where}[${index}]: a content block needs a "type"`);
      return block.type === "text" ? asText(block.text) : "";
    })
    .join("");
}

function systemMessage(system: unknown): NormalizedMessage[] {
  if (system === undefined || system === null) return [];
  return [{ role: "system", text: textBlocks(system, "system"), toolCalls: [], toolResults: [] }];
}

function toolNames(tools: unknown): string[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) problem("tools: expected an array");
  return tools.map((tool, index) => {
    if (!isObject(tool) || typeof tool.name !== "string") problem(`tools[${index}].name: required`);
    // Server tools (`web_search_…`, `bash_…`) carry a versioned `type` and no schema.
    if (tool.type === undefined || tool.type === "custom") {
      if (!TOOL_NAME.test(tool.name)) problem(`tools[${index}].name: ${JSON.stringify(tool.name)} must match ^[a-zA-Z0-9_-]{1,128}$`);
      if (!isObject(tool.input_schema)) problem(`tools[${index}].input_schema: required (a JSON Schema object)`);
    }
    return tool.name;
  });
}

function message(value: unknown, where: string): NormalizedMessage {
  if (!isObject(value)) problem(`${where}: expected an object`);
  if (value.role === "system") problem(`${where}.role: "system" is not a message role; use the top-level "system" parameter`);
  if (value.role !== "user" && value.role !== "assistant") problem(`${where}.role: expected "user" or "assistant"`);
  const content = value.content;
  if (typeof content === "string") return { role: value.role, text: content, toolCalls: [], toolResults: [] };
  if (!Array.isArray(content) || content.length === 0)
    problem(`${where}.content: expected a string or a non-empty array of content blocks`);
  const toolCalls: NormalizedToolCall[] = [];
  const toolResults: NormalizedToolResult[] = [];
  let text = "";
  content.forEach((block, index) => {
    const at = `${where}.content[${index}]`;
    if (!isObject(block) || typeof block.type !== "string") problem(`${at}: a content block needs a "type"`);
    if (block.type === "text") {
      if (typeof block.text !== "string") problem(`${at}.text: expected a string`);
      text += block.text;
    } else if (block.type === "tool_use") {
      if (value.role !== "assistant") problem(`${at}: tool_use blocks belong in assistant messages`);
      if (typeof block.id !== "string" || typeof block.name !== "string") problem(`${at}: tool_use needs "id" and "name"`);
      if (!isObject(block.input))
        problem(
          `${at}.input: expected an object (the parsed tool arguments), got ${Array.isArray(block.input) ? "an array" : typeof block.input}`,
        );
      toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
    } else if (block.type === "tool_result") {
      if (value.role !== "user") problem(`${at}: tool_result blocks belong in user messages`);
      if (typeof block.tool_use_id !== "string") problem(`${at}.tool_use_id: required`);
      const result: NormalizedToolResult = {
        toolCallId: block.tool_use_id,
        content: block.content === undefined ? "" : textBlocks(block.content, `${at}.content`),
      };
      if (block.is_error === true) result.isError = true;
      toolResults.push(result);
    }
  });
  return { role: value.role, text, toolCalls, toolResults };
}

/** Every tool_result must answer a tool_use of the previous message, and every tool_use must be answered in the next. */
function checkToolPairs(messages: NormalizedMessage[]): void {
  messages.forEach((current, index) => {
    const previous = messages[index - 1];
    const asked = new Map((previous?.role === "assistant" ? previous.toolCalls : []).map((call) => [call.id as string, call.name]));
    for (const result of current.toolResults) {
      const name = asked.get(result.toolCallId as string);
      if (name === undefined)
        problem(
          `messages[${index}]: unexpected tool_use_id ${JSON.stringify(result.toolCallId)} in tool_result; each tool_result must have a corresponding tool_use in the previous message`,
        );
      result.name = name;
    }
  });
  messages.forEach((current, index) => {
    const next = messages[index + 1];
    if (current.role !== "assistant" || next === undefined) return;
    const answered = new Set(next.toolResults.map((result) => result.toolCallId));
    const missing = current.toolCalls.filter((call) => !answered.has(call.id)).map((call) => call.id);
    if (missing.length > 0)
      problem(`messages[${index}]: tool_use ids were found without tool_result blocks immediately after: ${missing.join(", ")}`);
  });
}

/** Read and check a Messages body (`headers` for `anthropic-version`). */
export function parseAnthropicRequest(body: unknown, headers: Record<string, string>): ParseResult {
  const partial: Partial<ParsedRequest> = {};
  return runParser(partial, () => {
    if (!isObject(body)) problem("the request body must be a JSON object");
    if (typeof body.model !== "string" || body.model === "") problem("model: Field required");
    partial.model = body.model;
    partial.stream = body.stream === true;
    if (headers["anthropic-version"] === undefined) problem("anthropic-version: header is required");
    if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) problem("max_tokens: Field required (an integer >= 1)");
    partial.tools = toolNames(body.tools);
    if (!Array.isArray(body.messages) || body.messages.length === 0) problem("messages: Field required (a non-empty array)");
    const system = systemMessage(body.system);
    const conversation = body.messages.map((item, index) => message(item, `messages[${index}]`));
    checkToolPairs(conversation);
    partial.messages = [...system, ...conversation];
    return {
      model: partial.model,
      stream: partial.stream,
      tools: partial.tools,
      messages: partial.messages,
      includeUsage: true,
      // The cached prefix runs tools → system → messages.
      prefixes: promptPrefixes({ tools: body.tools ?? null, system: body.system ?? null }, body.messages),
      thinking: thinkingEnabled(body),
    };
  });
}
