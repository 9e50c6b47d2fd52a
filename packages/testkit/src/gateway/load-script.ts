/**
 * Gateway options from JSON, for the CLI and for test runners in other languages: a whole options object
 * (`{"dialect":"openai","script":[…]}`) or a bare array of turns. JSON cannot hold functions, so one
 * dynamic form is offered: `{"textTemplate": "The tool said: {{lastToolResult}}"}`.
 */
import { turnProblem } from "./turns.ts";
import type { Dialect, FakeGatewayOptions, RecordedRequest, Turn } from "./types.ts";

const DIALECTS = new Set<Dialect>(["openai", "responses", "anthropic", "gemini"]);

/** Placeholders a `textTemplate` may use. */
const PLACEHOLDERS: Record<string, (request: RecordedRequest) => string> = {
  lastToolResult: (request) => request.lastToolResult ?? "",
  lastUserText: (request) => request.messages.filter((message) => message.role === "user").at(-1)?.text ?? "",
  model: (request) => request.model,
  tools: (request) => request.tools.join(","),
};

function templateTurn(template: string, where: string): Turn {
  for (const [, name] of template.matchAll(/\{\{(\w+)\}\}/g)) {
    if (!(name && name in PLACEHOLDERS))
      throw new Error(`${where}: unknown placeholder {{${name}}} (known: ${Object.keys(PLACEHOLDERS).join(", ")})`);
  }
  return (request) => ({
    text: template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => (PLACEHOLDERS[name] as (request: RecordedRequest) => string)(request)),
  });
}

function turnFrom(value: unknown, where: string): Turn {
  if (typeof value === "object" && value !== null && "textTemplate" in value) {
    const template = (value as { textTemplate: unknown }).textTemplate;
    if (typeof template !== "string") throw new Error(`${where}.textTemplate: expected a string`);
    return templateTurn(template, where);
  }
  const problem = turnProblem(value);
  if (problem !== undefined || typeof value === "function") throw new Error(`${where}: ${problem ?? "not JSON"}`);
  return value as Turn;
}

/**
 * Parse gateway options from JSON text; `overrides` (e.g. CLI flags) win over the file.
 * Throws an Error whose message is one line naming what is wrong.
 */
export function loadGatewayOptions(text: string, overrides: Partial<Omit<FakeGatewayOptions, "script">> = {}): FakeGatewayOptions {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`the script is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const file = (Array.isArray(parsed) ? { script: parsed } : parsed) as Record<string, unknown>;
  if (typeof file !== "object" || file === null)
    throw new Error('the script must be a JSON array of turns or an object with a "script" array');
  const script = file.script ?? [];
  if (!Array.isArray(script)) throw new Error('"script" must be an array of turns');
  const options = { ...file, ...overrides } as Record<string, unknown>;
  if (!DIALECTS.has(options.dialect as Dialect))
    throw new Error(`dialect must be one of openai, responses, anthropic, gemini (got ${JSON.stringify(options.dialect)})`);
  if (options.onExhausted !== undefined && options.onExhausted !== "error" && options.onExhausted !== "repeat-last")
    throw new Error('onExhausted must be "error" or "repeat-last"');
  if (options.latencyMs !== undefined && !(typeof options.latencyMs === "number" && options.latencyMs >= 0))
    throw new Error("latencyMs must be a number >= 0");
  for (const key of ["model", "requireApiKey"] as const) {
    if (options[key] !== undefined && typeof options[key] !== "string") throw new Error(`${key} must be a string`);
  }
  const cache = options.promptCache as { minTokens?: unknown } | undefined;
  if (
    cache !== undefined &&
    !(
      typeof cache === "object" &&
      cache !== null &&
      (cache.minTokens === undefined || (Number.isInteger(cache.minTokens) && (cache.minTokens as number) >= 0))
    )
  )
    throw new Error("promptCache must be { minTokens?: integer >= 0 }");
  if (options.reasoningField !== undefined && options.reasoningField !== "reasoning_content" && options.reasoningField !== "reasoning")
    throw new Error('reasoningField must be "reasoning_content" or "reasoning"');
  if (options.reasoningPassBack !== undefined && !["ignore", "forbid", "require"].includes(options.reasoningPassBack as string))
    throw new Error('reasoningPassBack must be "ignore", "forbid" or "require"');
  return {
    dialect: options.dialect as Dialect,
    script: script.map((turn, index) => turnFrom(turn, `script[${index}]`)),
    onExhausted: options.onExhausted as "error" | "repeat-last" | undefined,
    model: options.model as string | undefined,
    requireApiKey: options.requireApiKey as string | undefined,
    latencyMs: options.latencyMs as number | undefined,
    promptCache: cache as { minTokens?: number } | undefined,
    reasoningField: options.reasoningField as "reasoning_content" | "reasoning" | undefined,
    reasoningPassBack: options.reasoningPassBack as "ignore" | "forbid" | "require" | undefined,
  };
}
