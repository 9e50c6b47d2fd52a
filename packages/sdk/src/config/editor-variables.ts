/**
 * The variables editors expand in their MCP config files, expanded the same way here so a file loads as the
 * editor wrote it (VS Code's "Variables reference", which Cursor follows):
 * - `${workspaceFolder}`: the folder holding the file's `.vscode/` (or Cursor's `.cursor/`); for a file
 *   outside such a folder (Claude Code's `.mcp.json`), the file's own folder. `${workspaceFolderBasename}`
 *   its last name;
 * - `${userHome}`: the home folder; `${pathSeparator}` (and its short form `${/}`): `/` (`\` on Windows);
 * - `${env:NAME}`: the environment, an unset or empty variable an error quoting the reference as written;
 * - `${NAME}` and `${NAME:-default}` (Claude Code's form): as in agentd.json (`expand.ts`).
 * Variables that need the editor itself — `${input:…}` (a prompt it shows), `${command:…}` (a command it
 * runs), `${config:…}` (its settings) — cannot be expanded: {@link EditorOnlyVariable} names the one met.
 * `$${…}` is a literal `${…}`.
 */
import { homedir } from "node:os";
import { basename, dirname, sep } from "node:path";
import { registerSecretValue } from "../secret-values.ts";
import { AgentdError } from "../wire/errors.ts";
import { expandEnv } from "./expand.ts";

/** What the predefined variables stand for, for one file. */
export interface EditorContext {
  workspaceFolder: string;
  userHome: string;
  env: Record<string, string | undefined>;
}

/** A variable only the editor can expand; `variable` is the reference as written. */
export class EditorOnlyVariable extends Error {
  constructor(
    readonly variable: string,
    readonly why: string,
  ) {
    super(`${variable} ${why}`);
  }
}

/** The context of the editor file at `file` (see the file header for `${workspaceFolder}`). */
export function editorContext(file: string, env: Record<string, string | undefined>): EditorContext {
  const folder = dirname(file);
  const name = basename(folder);
  const workspaceFolder = name === ".vscode" || name === ".cursor" ? dirname(folder) : folder;
  return { workspaceFolder, userHome: env.HOME || env.USERPROFILE || homedir(), env };
}

const REF = /\$?\$\{([^}]*)\}/g;

const EDITOR_ONLY: Record<string, string> = {
  input: "is an input prompt the editor shows, which agentd cannot: use ${env:NAME} to read the value from the environment",
  command: "runs an editor command, which agentd cannot: use ${env:NAME} to read the value from the environment",
  config: "reads an editor setting, which agentd cannot: use ${env:NAME} to read the value from the environment",
};

/** Expand the editor variables of one string; `path` names the field in errors. */
function expandString(s: string, ctx: EditorContext, path: string): string {
  return s.replace(REF, (match: string, inner: string) => {
    if (match.startsWith("$$")) return match.slice(1);
    const colon = inner.indexOf(":");
    const prefix = colon > 0 ? inner.slice(0, colon) : undefined;
    if (prefix === "env") {
      const name = inner.slice(4);
      const value = ctx.env[name];
      if (value !== undefined && value !== "") {
        // As `${NAME}` in agentd.json: a value from the environment is a secret in every output.
        registerSecretValue(value);
        return value;
      }
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `${path}: environment variable ${name} ${value === undefined ? "is not set" : "is empty"} (referenced as ${match})`,
      );
    }
    if (prefix !== undefined && EDITOR_ONLY[prefix] !== undefined && inner[colon + 1] !== "-")
      throw new EditorOnlyVariable(match, EDITOR_ONLY[prefix]);
    switch (inner) {
      case "workspaceFolder":
        return ctx.workspaceFolder;
      case "workspaceFolderBasename":
        return basename(ctx.workspaceFolder);
      case "userHome":
        return ctx.userHome;
      case "pathSeparator":
      case "/":
        return sep;
    }
    // `${NAME}` / `${NAME:-default}`, or text that is no variable at all: agentd.json's rules.
    return expandEnv(match, ctx.env, path);
  });
}

/** Expand every string inside `value` (see the file header). Throws {@link EditorOnlyVariable} or E_CONFIG_INVALID. */
export function expandEditorVariables<T>(value: T, ctx: EditorContext, path: string): T {
  if (typeof value === "string") return expandString(value, ctx, path) as T;
  if (Array.isArray(value)) return value.map((x, i) => expandEditorVariables(x, ctx, `${path}[${i}]`)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) out[k] = expandEditorVariables(x, ctx, `${path}.${k}`);
    return out as T;
  }
  return value;
}
