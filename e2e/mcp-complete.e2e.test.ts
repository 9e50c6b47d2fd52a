/**
 * `agentd mcp SERVER complete PROMPT_OR_TEMPLATE ARG [PREFIX]` against server-everything's
 * `completable-prompt`: `completion/complete` with the prefix, and with `--arg` as the context.
 */
import { afterEach, expect, test } from "bun:test";
import { resolve } from "node:path";
import { CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace;
afterEach(() => ws?.cleanup());

test("complete prints the server's completions, one a line; --arg gives the context; --json the result", async () => {
  ws = new CliWorkspace();
  const config = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
  const departments = await ws.run(["mcp", "--config", config, "everything", "complete", "completable-prompt", "department", "S"]);
  expect(departments.code).toBe(0);
  expect(departments.stdout).toBe("Sales\nSupport\n");
  const names = await ws.run([
    "mcp",
    "--config",
    config,
    "everything",
    "complete",
    "completable-prompt",
    "name",
    "",
    "--arg",
    "department=Engineering",
    "--json",
  ]);
  expect(names.code).toBe(0);
  expect(JSON.parse(names.stdout).completion.values).toEqual(["Alice", "Bob", "Charlie"]);
  const missing = await ws.run(["mcp", "--config", config, "everything", "complete", "completable-prompt"]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("complete needs an argument name");
});
