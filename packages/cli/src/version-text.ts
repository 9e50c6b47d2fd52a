/**
 * The version text, shared by `agentd version` and main.ts's fast path: `agentd --version` prints it without
 * loading the CLI's commands (and with them most of the SDK), so a version probe costs little more than the
 * runtime's own start.
 */
import { SUPPORTED_REVISIONS } from "@agentd/sdk/wire";

/** The version of this build. */
export const VERSION = "0.1.0";

/** The runtime this copy runs on (the npm package also runs under Node). */
const runtime = () => (typeof Bun !== "undefined" ? `bun ${Bun.version}` : `node ${process.versions.node}`);

/** What `agentd version` prints: one line, or one JSON object with `json`. */
export function versionText(json: boolean): string {
  return json
    ? `${JSON.stringify({ version: VERSION, mcp: SUPPORTED_REVISIONS, runtime: runtime() })}\n`
    : `agentd ${VERSION} (MCP ${SUPPORTED_REVISIONS.join(", ")})\n`;
}

/** Whether argv asks only for the version (`--version`, `-v`, `version`, optionally with `--json`). */
export function asksOnlyForVersion(argv: readonly string[]): { json: boolean } | undefined {
  const [first, ...rest] = argv;
  if (first !== "--version" && first !== "-v" && first !== "version") return undefined;
  if (rest.length === 0) return { json: false };
  return first === "version" && rest.length === 1 && rest[0] === "--json" ? { json: true } : undefined;
}
