/**
 * A process that loads what a one-shot run and an idle MCP server load — the `@agentd/sdk/mcp` and
 * `@agentd/sdk/transport` entries and `createAgent` — then prints, for each SDK module it loaded, the Node
 * built-ins that module imports at its top (what the runtime loads at start whether or not it is called).
 */
import { readFileSync } from "node:fs";
import "@agentd/sdk/mcp";
import "@agentd/sdk/transport";
import "../../agent/create-agent.ts";

const STATIC_BUILTIN = /^import (?!type )[^;]*?from "(node:[a-z_]+)";/gm;
const found: Record<string, string[]> = {};
for (const path of Object.keys(require.cache)) {
  const at = path.indexOf("/packages/sdk/src/");
  if (at < 0 || !path.endsWith(".ts")) continue;
  const builtins = [...readFileSync(path, "utf8").matchAll(STATIC_BUILTIN)].map((m) => m[1] as string);
  if (builtins.length) found[path.slice(at + "/packages/sdk/src/".length)] = builtins;
}
process.stdout.write(`${JSON.stringify(found)}\n`);
