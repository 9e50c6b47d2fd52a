/**
 * Arguments a person types for `agentd mcp … call|get-prompt`: a JSON object, `--arg key=value` pairs
 * typed by the tool's input schema, and `--arg key:=JSON` for a raw JSON value. Also the repeatable-flag
 * reader `init` shares (citty keeps only the last value of a repeated flag).
 */
import { AgentdError } from "@agentd/sdk";

/** Every value of a repeatable flag in order: `--name v`, `--name=v` (and `-a v` for an alias). Stops at `--`. */
export function repeatedFlag(rawArgs: readonly string[], name: string, alias?: string): string[] {
  const values: string[] = [];
  const spellings = [`--${name}`, ...(alias ? [`-${alias}`] : [])];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    if (eq > 0 && spellings.includes(arg.slice(0, eq))) values.push(arg.slice(eq + 1));
    else if (spellings.includes(arg)) {
      const next = rawArgs[i + 1];
      if (next === undefined) throw new AgentdError("E_USAGE", `${arg} needs a value`);
      values.push(next);
      i++;
    }
  }
  return values;
}

/** One `--arg`: `key=value` (typed by the schema), or `key:=json` (parsed as JSON). */
export interface ArgPair {
  key: string;
  raw: string;
  json: boolean;
}

/** Split `key=value` / `key:=json`. */
export function parseArgPair(text: string): ArgPair {
  const eq = text.indexOf("=");
  const json = eq > 0 && text[eq - 1] === ":";
  const key = eq > 0 ? text.slice(0, json ? eq - 1 : eq) : "";
  if (!key) throw new AgentdError("E_USAGE", `--arg expects KEY=VALUE or KEY:=JSON, got '${text}'`);
  return { key, raw: text.slice(eq + 1), json };
}

const parseJson = (raw: string, what: string): unknown => {
  try {
    return JSON.parse(raw);
  } catch {
    throw new AgentdError("E_USAGE", `${what} is not valid JSON: ${raw.length > 60 ? `${raw.slice(0, 60)}…` : raw}`);
  }
};

/** The JSON types a schema property allows (empty when it does not say). */
function typesOf(schema: unknown): string[] {
  const t = (schema as { type?: unknown } | undefined)?.type;
  return typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
}

/** A `key=value` string as the value its schema property expects; strings stay strings when unsure. */
export function coerceArg(pair: ArgPair, property: unknown): unknown {
  if (pair.json) return parseJson(pair.raw, `--arg ${pair.key}`);
  const types = typesOf(property);
  if (types.length === 0 || types.includes("string")) return pair.raw;
  if (types.includes("integer") || types.includes("number")) {
    const n = Number(pair.raw);
    if (pair.raw.trim() === "" || Number.isNaN(n) || (!types.includes("number") && !Number.isInteger(n)))
      throw new AgentdError(
        "E_USAGE",
        `--arg ${pair.key} expects ${types.includes("number") ? "a number" : "a whole number"}, got '${pair.raw}'`,
      );
    return n;
  }
  if (types.includes("boolean")) {
    if (pair.raw === "true" || pair.raw === "false") return pair.raw === "true";
    throw new AgentdError("E_USAGE", `--arg ${pair.key} expects true or false, got '${pair.raw}'`);
  }
  if (types.includes("null") && pair.raw === "null") return null;
  return parseJson(pair.raw, `--arg ${pair.key}`);
}

/**
 * The arguments object of a tool call: the JSON positional (or `-` for stdin) as the base, each `--arg`
 * on top, typed by `inputSchema.properties` when the tool has one.
 */
export function buildToolArguments(json: string | undefined, args: readonly string[], inputSchema?: unknown): Record<string, unknown> {
  const base = json === undefined ? {} : parseJson(json, "the arguments");
  if (!base || typeof base !== "object" || Array.isArray(base))
    throw new AgentdError("E_USAGE", `the arguments must be a JSON object such as '{"path":"/data/x"}'`);
  const properties = ((inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as Record<string, unknown>;
  const out = { ...(base as Record<string, unknown>) };
  for (const text of args) {
    const pair = parseArgPair(text);
    out[pair.key] = coerceArg(pair, properties[pair.key]);
  }
  return out;
}

/** The string arguments of a prompt (`--arg key=value`; prompt arguments are strings). */
export function buildPromptArguments(args: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of args) {
    const pair = parseArgPair(text);
    out[pair.key] = pair.json ? JSON.stringify(parseJson(pair.raw, `--arg ${pair.key}`)) : pair.raw;
  }
  return out;
}

/** Read all of stdin (for `-` in place of the JSON arguments). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
