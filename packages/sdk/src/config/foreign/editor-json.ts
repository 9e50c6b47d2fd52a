/**
 * The JSON files of the editors and desktop clients whose server entries are agentd's own shape
 * (`command`/`args`/`env`/`cwd`, or `type`/`url`/`headers`): Claude Desktop, Claude Code and Cursor
 * (`mcpServers`), Cline (and Roo Code, its fork), Windsurf (`mcpServers`, a remote server as `serverUrl`),
 * and VS Code (`servers`). agentd's keys are taken as written and an unknown key is left for agentd's check
 * to name (a near miss such as `arg` is most likely a typo there); each tool's own settings are mapped where
 * agentd has the same idea (Cline's timeout in seconds, `disabledTools`) and otherwise not taken, named.
 */
import type { EntryContext, EntryResult, FormatReader, KeyRule } from "./entry-rules.ts";
import { mapKeys, timeoutIn, toolList } from "./entry-rules.ts";

const NO_APPROVAL = "agentd asks no one before a tool call: limit the server's tools with tools.include/exclude";

/** Settings every one of these files may carry. */
const SHARED: Record<string, KeyRule> = {
  autoApprove: { why: NO_APPROVAL },
  alwaysAllow: { why: NO_APPROVAL },
  // Without a unit, and seconds in one tool (Cline) while others have none: see Cline's own rule.
  timeout: { why: 'a bare number whose unit this file does not say: set mcpServers.X.timeout in agentd.json (e.g. "60s")' },
  dev: { why: "VS Code's watch-and-restart for developing a server" },
  disabledTools: toolList("exclude"),
};

/** Cline and Roo Code: `timeout` is seconds (default 60). */
const CLINE: Record<string, KeyRule> = {
  ...SHARED,
  timeout: timeoutIn("s"),
  watchPaths: { why: "Roo Code restarts the server when these files change; agentd does not watch them" },
};

/** Windsurf: `serverUrl` is the remote server's URL. */
const WINDSURF: Record<string, KeyRule> = { ...SHARED, serverUrl: "url" };

/** VS Code: gallery installs add where the server came from and its version, labels for the editor. */
const VSCODE: Record<string, KeyRule> = {
  ...SHARED,
  gallery: { why: "where VS Code installed the server from", quiet: true },
  version: { why: "the version VS Code installed", quiet: true },
};

const reader = (key: string, rules: Record<string, KeyRule>): FormatReader => ({
  key,
  entry: (_name: string, raw: Record<string, unknown>, ctx: EntryContext): EntryResult => ({ entry: mapKeys(raw, rules, ctx, "keep") }),
});

/** Claude Desktop, Claude Code, Cursor. */
export const claudeReader = reader("mcpServers", SHARED);
/** Cline and Roo Code. */
export const clineReader = reader("mcpServers", CLINE);
/** Windsurf. */
export const windsurfReader = reader("mcpServers", WINDSURF);
/** VS Code's `mcp.json` (and a `settings.json` with `mcp.servers` flattened by the caller). */
export const vscodeReader = reader("servers", VSCODE);
