/** `--mcp-config FILE` on `mcp`, `run` and `serve`: other tools' server lists, checked like agentd.json's. */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";

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
  const desktop = writeJson("claude_desktop_config.json", {
    mcpServers: { other: { command: "never-started" } },
    globalShortcut: "Alt+Space",
  });
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

test("a VS Code mcp.json as VS Code writes it: JSONC, ${workspaceFolder}; a server with ${input:…} is left out, named, and the others load", async () => {
  ws = new CliWorkspace();
  mkdirSync(join(ws.dir, ".vscode"));
  const file = join(ws.dir, ".vscode", "mcp.json");
  writeFileSync(
    file,
    `{
  // as VS Code writes it
  "inputs": [{ "type": "promptString", "id": "token", "password": true }],
  "servers": {
    "rec": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(ws.recordingServer().args[0])}, "\${workspaceFolder}/server.jsonl"], },
    "gh": { "command": "gh-mcp", "env": { "TOKEN": "\${input:token}" } },
  },
}`,
  );
  const list = await ws.run(["mcp", "--mcp-config", file]);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain("rec");
  expect(list.stdout).not.toContain("gh-mcp");
  // Said, not silently dropped: the warning `agentd run` prints for the same file.
  const skipped = events(list).filter((e) => e.event === "config.server_skipped");
  expect(skipped.map((e) => [e.level, e.server])).toEqual([["warn", "gh"]]);
  expect(skipped[0]?.reason).toBe(
    `MCP server 'gh' (${file}) left out: \${input:token} is an input prompt the editor shows, which agentd cannot: use \${env:NAME} to read the value from the environment`,
  );
  const tools = await ws.run(["mcp", "rec", "tools", "--mcp-config", file]);
  expect(tools.code).toBe(0);
  // ${workspaceFolder} is the folder holding .vscode/: the server wrote its log there.
  expect(ws.received().some((m) => m.method === "tools/list")).toBe(true);
  const gh = await ws.run(["mcp", "gh", "tools", "--mcp-config", file]);
  expect(gh.code).toBe(2);
  expect(gh.stderr).toContain(`MCP server 'gh' (${file}) left out: \${input:token} is an input prompt the editor shows`);
  expect(gh.stderr).not.toContain("    at ");
});

test('agentd mcp NAME refuses a server with "disabled": true, saying so, and does not start it', async () => {
  ws = new CliWorkspace();
  const config = ws.writeConfig({ mcpServers: { rec: { ...ws.recordingServer(), disabled: true } } });
  const tools = await ws.run(["mcp", "rec", "tools", "--config", config]);
  expect(tools.code).toBe(2);
  expect(tools.stderr).toContain(
    `MCP server 'rec' is disabled ("disabled": true in its entry): set it to false or remove it to use the server`,
  );
  expect(ws.received()).toEqual([]);
  const list = await ws.run(["mcp", "--config", config]);
  expect(list.stdout).toContain("rec (disabled)");
});
