/**
 * Config files are JSONC: JSON with `//` and `/* *\/` comments and trailing commas, as VS Code writes its
 * `mcp.json` (and as agentd.json may be written too). Parsed with Microsoft's `jsonc-parser`, the parser
 * VS Code itself uses; a file it cannot read is one line naming the file, line and column, and what was
 * expected there — never the file's text.
 */
import * as jsoncModule from "jsonc-parser";
import { AgentdError } from "../wire/errors.ts";

type Jsonc = Pick<typeof jsoncModule, "parse" | "printParseErrorCode">;
// Bun loads the package's ES module (named exports); Node its UMD build, whose exports arrive as `default`.
const jsonc: Jsonc = "parse" in jsoncModule ? jsoncModule : (jsoncModule as unknown as { default: Jsonc }).default;

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** "CloseBraceExpected" → "close brace expected". */
const words = (code: string) => code.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

/** Parse JSONC `text` read from `file`; throws E_CONFIG_INVALID naming `file:line:column` and the problem. */
export function parseJsonc(text: string, file: string): unknown {
  const errors: { error: number; offset: number; length: number }[] = [];
  // A byte order mark is not JSON, but editors on Windows write one.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const value = jsonc.parse(body, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return value;
  const { line, column } = lineAndColumn(body, first.offset);
  // A position, never the text there: a file that is not JSON may well be a secret (a `.env` behind a
  // symlink, a key), and this line reaches logs and terminals.
  throw new AgentdError(
    "E_CONFIG_INVALID",
    `${file}:${line}:${column}: not valid JSON (${words(jsonc.printParseErrorCode(first.error as never))})`,
  );
}
