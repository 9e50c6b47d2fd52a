/**
 * Reading a Gemini `generateContent` body (camelCase or snake_case field names, as the REST API accepts
 * both): checks what the real API refuses (no contents, empty parts, bad roles, function names, and
 * function responses that do not answer the function calls of the preceding model turn one for one)
 * and normalises the conversation.
 */
import { asText, isObject, problem, runParser, type ParseResult, type ParsedRequest, type RouteMatch } from "./dialect.ts";
import { geminiThinking } from "./gemini-checks.ts";
import { promptPrefixes } from "./prompt-cache.ts";
import type { NormalizedMessage, NormalizedToolCall, NormalizedToolResult } from "./types.ts";

/** Gemini API function name rule (v1beta FunctionDeclaration.name). */
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** A field by its camelCase or snake_case name. */
function field(object: Record<string, unknown>, camel: string): unknown {
  return object[camel] ?? object[camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
}

function parts(value: unknown, where: string): Record<string, unknown>[] {
  if (!Array.isArray(value) || value.length === 0) problem(`${where}.parts: must not be empty`);
  return value.map((part, index) => (isObject(part) ? part : problem(`${where}.parts[${index}]: expected an object`)));
}

function systemMessage(body: Record<string, unknown>): NormalizedMessage[] {
  const system = field(body, "systemInstruction");
  if (system === undefined || system === null) return [];
  if (!isObject(system)) problem("systemInstruction: expected a Content object");
  const text = parts(system.parts, "systemInstruction")
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .join("");
  return [{ role: "system", text, toolCalls: [], toolResults: [] }];
}

function toolNames(tools: unknown): string[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) problem("tools: expected an array of Tool objects");
  return tools.flatMap((tool, index) => {
    if (!isObject(tool)) problem(`tools[${index}]: expected an object`);
    const declarations = field(tool, "functionDeclarations");
    if (declarations === undefined) return [];
    if (!Array.isArray(declarations)) problem(`tools[${index}].functionDeclarations: expected an array`);
    return declarations.map((declaration, at) => {
      const name = isObject(declaration) ? declaration.name : undefined;
      if (typeof name !== "string" || !FUNCTION_NAME.test(name))
        problem(
          `tools[${index}].functionDeclarations[${at}].name: ${JSON.stringify(name)} must start with a letter or underscore and use only a-z, A-Z, 0-9, _ . : - (at most 64)`,
        );
      return name;
    });
  });
}

function content(value: unknown, where: string): NormalizedMessage {
  if (!isObject(value)) problem(`${where}: expected a Content object`);
  const role = value.role ?? "user";
  if (role !== "user" && role !== "model" && role !== "function") problem(`${where}.role: expected "user" or "model"`);
  const toolCalls: NormalizedToolCall[] = [];
  const toolResults: NormalizedToolResult[] = [];
  let text = "";
  parts(value.parts, where).forEach((part, index) => {
    const at = `${where}.parts[${index}]`;
    const call = field(part, "functionCall");
    const response = field(part, "functionResponse");
    if (typeof part.text === "string" && part.thought !== true) text += part.text;
    if (call !== undefined) {
      if (role !== "model") problem(`${at}.functionCall: function calls belong in "model" turns`);
      if (!isObject(call) || typeof call.name !== "string") problem(`${at}.functionCall.name: required`);
      if (call.args !== undefined && !isObject(call.args)) problem(`${at}.functionCall.args: expected an object`);
      toolCalls.push({ id: typeof call.id === "string" ? call.id : undefined, name: call.name, arguments: call.args ?? {} });
    }
    if (response !== undefined) {
      if (!isObject(response) || typeof response.name !== "string") problem(`${at}.functionResponse.name: required`);
      if (!isObject(response.response)) problem(`${at}.functionResponse.response: expected an object`);
      toolResults.push({
        toolCallId: typeof response.id === "string" ? response.id : undefined,
        name: response.name,
        content: asText(response.response),
      });
    }
  });
  return { role: role === "model" ? "assistant" : role === "function" ? "tool" : "user", text, toolCalls, toolResults };
}

/** Function responses must answer the previous model turn's calls one for one (by id when ids were given). */
function checkFunctionPairs(messages: NormalizedMessage[]): void {
  messages.forEach((current, index) => {
    if (current.toolResults.length === 0) return;
    const calls = messages[index - 1]?.role === "assistant" ? (messages[index - 1] as NormalizedMessage).toolCalls : [];
    if (calls.length !== current.toolResults.length)
      problem(
        `contents[${index}]: the number of function response parts (${current.toolResults.length}) must equal the number of function call parts of the preceding model turn (${calls.length})`,
      );
    current.toolResults.forEach((result, at) => {
      const match =
        result.toolCallId !== undefined
          ? calls.find((call) => call.id === result.toolCallId)
          : calls.find((call) => call.name === result.name);
      if (match === undefined || match.name !== result.name)
        problem(
          `contents[${index}].parts[${at}].functionResponse: ${JSON.stringify(result.name)}${result.toolCallId === undefined ? "" : ` (id ${result.toolCallId})`} answers no function call of the preceding model turn`,
        );
    });
  });
}

/** Read and check a generateContent body; the model and streaming come from the route. */
export function parseGeminiRequest(body: unknown, route: RouteMatch): ParseResult {
  const partial: Partial<ParsedRequest> = { model: route.model ?? "", stream: route.stream === true };
  return runParser(partial, () => {
    if (!isObject(body)) problem("the request body must be a JSON object");
    partial.tools = toolNames(body.tools);
    const contents = body.contents;
    if (!Array.isArray(contents) || contents.length === 0) problem("contents: must not be empty");
    const conversation = contents.map((item, index) => content(item, `contents[${index}]`));
    checkFunctionPairs(conversation);
    partial.messages = [...systemMessage(body), ...conversation];
    return {
      model: partial.model as string,
      stream: partial.stream as boolean,
      tools: partial.tools,
      messages: partial.messages,
      includeUsage: true,
      prefixes: promptPrefixes({ tools: body.tools ?? null, system: field(body, "systemInstruction") ?? null }, contents),
      thinking: geminiThinking(body),
    };
  });
}
