/** `--mcp-config FILE` on `mcp`, `run` and `serve`: other tools' server lists, checked like agentd.json's. */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliWorkspace } from "./__fixtures__/cli-harness.ts";

let ws: CliWorkspace;
afterEach(() => ws?.cleanup());

const writeJson = (name: string, body: unknown): string => {
  const path = join(ws.dir, name);
  writeFileSync(path, JSON.stringify(body, null, 2));
  return path;
};

test("agentd mcp uses the servers of a VS Code file and of a Claude Desktop file, repeated", async () => {
  ws = new CliWorkspace();
  const vscode = writeJson("vscode-mcp.json", { inputs: [], servers: { rec: { type: "stdio", ...ws.recordingServer() } } });
  const desktop = writeJson("claude_desktop_config.json", { mcpServers: { other: { command: "never-started" } }, globalShortcut: "Alt+Space" });
  const list = await ws.run(["mcp", "--mcp-config", vscode, `--mcp-config=${desktop}`]);
  expect(list.stderr).toBe("");
  expect(list.code).toBe(0);
  expect(list.stdout).toContain("rec");
  expect(list.stdout).toContain("other");
  const tools = await ws.run(["mcp", "rec", "tools", "--mcp-config", vscode]);
  expect(tools.code).toBe(0);
  expect(ws.received().some((m) => m.method === "tools/list")).toBe(true);
});

test("run refuses an SSE server from a foreign file at load time, naming the file and the field", async () => {
  ws = new CliWorkspace();
  const old = writeJson(".mcp.json", { mcpServers: { legacy: { type: "sse", url: "https://tools.example/sse" } } });
  const run = await ws.run(["run", "--mcp-config", old, "hi"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`${old}.mcpServers.legacy.type: the 2024-11-05 HTTP+SSE transport is not supported`);
  expect(run.stderr).not.toContain("    at "); // one line, no stack
});

test("serve refuses a server name defined in agentd.json and in a --mcp-config file, naming both", async () => {
  ws = new CliWorkspace();
  const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
  const cursor = writeJson("cursor-mcp.json", { mcpServers: { rec: { command: "elsewhere" } } });
  const serve = await ws.run(["serve", "--stdio", "--config", config, "--mcp-config", cursor]);
  expect(serve.code).toBe(2);
  expect(serve.stderr).toContain(`MCP server 'rec' is defined in both ${config} and ${cursor}: rename or remove one`);
});
