/**
 * Which tool wrote an `--mcp-config` file, and how its text is read. A file is recognised by where its
 * server list is (`mcpServers`, `servers`, `context_servers`, `mcp_servers`, `extensions`), by keys only one
 * tool writes in an entry (Gemini CLI's `httpUrl`, Windsurf's `serverUrl`, Cline's `autoApprove`), and by its
 * usual path (`.gemini/settings.json`, `cline_mcp_settings.json`); `--mcp-config-format NAME` says it outright.
 * TOML (Codex) and YAML (goose) are parsed by maintained libraries, loaded only when such a file is read so
 * that no other start of the CLI pays for them.
 */
import { basename, dirname } from "node:path";
import { AgentdError } from "../../wire/errors.ts";
import { parseJsonc } from "../parse-jsonc.ts";

/** The formats `--mcp-config` reads, by the name `--mcp-config-format` takes. */
export const FOREIGN_FORMATS = {
  claude: "Claude Desktop / Claude Code",
  cursor: "Cursor",
  cline: "Cline",
  windsurf: "Windsurf",
  vscode: "VS Code",
  gemini: "Gemini CLI",
  codex: "OpenAI Codex",
  goose: "goose",
  zed: "Zed",
} as const;

/** A format `--mcp-config` reads. */
export type ForeignFormat = keyof typeof FOREIGN_FORMATS;

/** The format named by `--mcp-config-format`, or one line listing the names. */
export function foreignFormat(name: string): ForeignFormat {
  if (Object.hasOwn(FOREIGN_FORMATS, name)) return name as ForeignFormat;
  throw new AgentdError("E_USAGE", `--mcp-config-format '${name}': expected one of ${Object.keys(FOREIGN_FORMATS).join(", ")}`);
}

/** Entry keys only one tool writes. */
const ENTRY_MARKERS: ReadonlyArray<[ForeignFormat, readonly string[]]> = [
  ["gemini", ["httpUrl", "trust", "includeTools", "excludeTools"]],
  ["windsurf", ["serverUrl"]],
  ["cline", ["autoApprove", "alwaysAllow", "disabledTools", "watchPaths"]],
];

/** The format of a parsed JSON/TOML/YAML document read from `file` (see the module header). */
export function detectFormat(doc: Record<string, unknown>, file: string): ForeignFormat | undefined {
  if (isObject(doc.mcp_servers)) return "codex";
  if (isObject(doc.context_servers)) return "zed";
  if (isObject(doc.extensions) && !("mcpServers" in doc)) return "goose";
  if ("servers" in doc && !("mcpServers" in doc)) return "vscode";
  if (!("mcpServers" in doc)) return undefined;
  const entries = isObject(doc.mcpServers) ? Object.values(doc.mcpServers).filter(isObject) : [];
  for (const [format, keys] of ENTRY_MARKERS) if (entries.some((e) => keys.some((k) => k in e))) return format;
  const folder = basename(dirname(file));
  const name = basename(file);
  if (folder === ".gemini") return "gemini";
  if (name === "cline_mcp_settings.json" || name === "mcp_settings.json") return "cline";
  if (folder === "windsurf" || name === "mcp_config.json") return "windsurf";
  if (folder === ".cursor") return "cursor";
  return "claude";
}

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** How a file's text is parsed. */
type Syntax = "json" | "toml" | "yaml";

/** The syntax of `file`: by the format when it is given, else by the file name, else by its first lines. */
function syntaxOf(file: string, text: string, format: ForeignFormat | undefined): Syntax {
  if (format === "codex") return "toml";
  if (format === "goose") return "yaml";
  if (format) return "json";
  if (/\.toml$/i.test(file)) return "toml";
  if (/\.ya?ml$/i.test(file)) return "yaml";
  if (/^\s*[{/]/.test(text)) return "json";
  if (/^\s*\[mcp_servers[.\]]/m.test(text) || /^\s*mcp_servers\s*=/m.test(text)) return "toml";
  if (/^extensions\s*:/m.test(text)) return "yaml";
  return "json";
}

/** Parse the text of an `--mcp-config` file: JSONC, TOML or YAML (see the module header); a syntax error is one line naming the place. */
export async function parseForeignText(text: string, file: string, format: ForeignFormat | undefined): Promise<unknown> {
  const syntax = syntaxOf(file, text, format);
  if (syntax === "json") return parseJsonc(text, file);
  if (syntax === "toml") {
    const { parse, TomlError } = await import("smol-toml");
    try {
      return parse(text);
    } catch (e) {
      if (!(e instanceof TomlError)) throw e;
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `${file}:${e.line}:${e.column}: not valid TOML (${firstLine(e.message).replace(/^Invalid TOML document: /, "")})`,
      );
    }
  }
  const { parse, YAMLParseError } = await import("yaml");
  try {
    return parse(text, { logLevel: "error", maxAliasCount: 100 });
  } catch (e) {
    if (!(e instanceof YAMLParseError)) throw e;
    const at = e.linePos?.[0];
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `${file}:${at?.line ?? 1}:${at?.col ?? 1}: not valid YAML (${firstLine(e.message).replace(/ at line \d+, column \d+:?$/, "")})`,
    );
  }
}

const firstLine = (s: string): string => s.split("\n", 1)[0]?.trim() ?? "";
