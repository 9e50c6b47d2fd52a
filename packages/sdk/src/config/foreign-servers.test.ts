import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseForeignServers } from "./foreign-servers.ts";
import { resolveConfig } from "./load.ts";

const dir = mkdtempSync(join(tmpdir(), "agentd-mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === "string" ? body : JSON.stringify(body, null, 2));
  return p;
};

// Shapes as these tools write them (other keys included, to show they are ignored).
const claudeDesktop = {
  mcpServers: {
    filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"] },
    github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GH_TOKEN}" } },
  },
  globalShortcut: "Alt+Space",
  preferences: { quickEntryShortcut: "off" },
};
const claudeCode = {
  mcpServers: {
    docs: { type: "http", url: "https://docs.example/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN:-anonymous}" } },
    local: { type: "stdio", command: "./server.sh", args: [], env: {} },
  },
};
const cursor = { mcpServers: { search: { url: "https://search.example/mcp", headers: { "X-Key": "${env:SEARCH_KEY}" } } } };
const cline = {
  mcpServers: {
    weather: { command: "node", args: ["weather.js"], autoApprove: ["forecast"], alwaysAllow: [], timeout: 60, disabled: false },
  },
};
const vscode = {
  inputs: [{ type: "promptString", id: "api-key", description: "API key", password: true }],
  servers: {
    fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"], env: { HOME_DIR: "${env:HOME}" }, dev: { watch: "src/**/*.ts" } },
    remote: { type: "http", url: "https://remote.example/mcp" },
  },
};
const ENV = { GH_TOKEN: "gh-1", SEARCH_KEY: "sk-2", HOME: "/home/me" };

describe("--mcp-config: the server list of another tool's file", () => {
  test("Claude Desktop, Claude Code, Cursor and Cline keep mcpServers; their other keys are ignored", () => {
    expect(parseForeignServers(claudeDesktop, "claude_desktop_config.json", ENV)).toEqual({
      file: "claude_desktop_config.json",
      key: "mcpServers",
      servers: {
        filesystem: claudeDesktop.mcpServers.filesystem,
        github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "gh-1" } },
      },
    });
    expect(parseForeignServers(claudeCode, ".mcp.json", {}).servers.docs).toEqual({
      type: "http",
      url: "https://docs.example/mcp",
      headers: { Authorization: "Bearer anonymous" },
    });
    expect(parseForeignServers(cursor, "mcp.json", ENV).servers.search).toEqual({ url: "https://search.example/mcp", headers: { "X-Key": "sk-2" } });
    expect(parseForeignServers(cline, "cline_mcp_settings.json", {}).servers.weather).toEqual({ command: "node", args: ["weather.js"], disabled: false });
  });

  test("VS Code keeps servers; ${env:NAME} reads the environment; inputs and dev are ignored", () => {
    const r = parseForeignServers(vscode, ".vscode/mcp.json", ENV);
    expect(r.key).toBe("servers");
    expect(r.servers).toEqual({
      fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"], env: { HOME_DIR: "/home/me" } },
      remote: { type: "http", url: "https://remote.example/mcp" },
    });
  });

  test("${input:…} is refused, naming it and where it is", () => {
    const file = { ...vscode, servers: { gh: { command: "gh-mcp", env: { TOKEN: "${input:api-key}" } } } };
    expect(() => parseForeignServers(file, ".vscode/mcp.json", ENV)).toThrow(
      ".vscode/mcp.json.servers.gh.env.TOKEN: ${input:api-key} is a VS Code input prompt, which agentd cannot show: use ${VAR} to read the value from the environment",
    );
  });

  test("entries get agentd.json's checks: SSE, typos, a missing variable", () => {
    expect(() => parseForeignServers({ mcpServers: { old: { type: "sse", url: "https://x.example/sse" } } }, ".mcp.json", {})).toThrow(
      '.mcp.json.mcpServers.old.type: the 2024-11-05 HTTP+SSE transport is not supported',
    );
    expect(() => parseForeignServers({ servers: { s: { command: "x", arg: [] } } }, "mcp.json", {})).toThrow('mcp.json.servers.s.arg: unknown field; did you mean "args"?');
    expect(() => parseForeignServers(claudeDesktop, "c.json", {})).toThrow("c.json.mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: environment variable GH_TOKEN is not set");
    expect(() => parseForeignServers({ mcpServers: { s: { command: "x", envFile: ".env" } } }, "m.json", {})).toThrow("m.json.mcpServers.s.envFile: not read by agentd");
  });

  test("a file without a server list says which keys were expected", () => {
    expect(() => parseForeignServers({ globalShortcut: "x" }, "c.json", {})).toThrow(
      'c.json: no server list: expected "mcpServers" (Claude Desktop, Claude Code, Cursor) or "servers" (VS Code)',
    );
    expect(() => parseForeignServers([], "c.json", {})).toThrow('c.json: expected a JSON object with "mcpServers" or "servers"');
    expect(() => parseForeignServers({ servers: [] }, "c.json", {})).toThrow("c.json.servers: expected an object of servers");
  });
});

describe("resolveConfig with --mcp-config files", () => {
  test("servers add to agentd.json's; agentd.json's own keys stay strict", async () => {
    const own = write("agentd.json", { mcpServers: { mine: { command: "mine" } }, limits: { maxTurns: 3 } });
    const desktop = write("claude_desktop_config.json", claudeDesktop);
    const code = write("vscode-mcp.json", vscode);
    const r = await resolveConfig({ configPath: own, env: ENV, overrides: { mcpConfig: [desktop, code] } });
    expect(Object.keys(r.config.mcpServers ?? {})).toEqual(["mine", "filesystem", "github", "fetch", "remote"]);
    expect(r.config.limits?.maxTurns).toBe(3);
    const strict = write("strict.json", { mcpServers: { mine: { command: "mine" } }, servers: {} });
    await expect(resolveConfig({ configPath: strict, env: ENV })).rejects.toThrow(`${strict}.servers: unknown field`);
  });

  test("without agentd.json, the files alone give the servers", async () => {
    const desktop = write("only.json", claudeDesktop);
    const r = await resolveConfig({ configPath: undefined, env: { ...ENV, AGENT_CONFIG: undefined }, overrides: { mcpConfig: [desktop] } });
    expect(Object.keys(r.config.mcpServers ?? {})).toEqual(["filesystem", "github"]);
  });

  test("a server name defined twice is an error naming both files", async () => {
    const own = write("own.json", { mcpServers: { github: { command: "mine" } } });
    const desktop = write("desktop.json", claudeDesktop);
    await expect(resolveConfig({ configPath: own, env: ENV, overrides: { mcpConfig: [desktop] } })).rejects.toThrow(
      `MCP server 'github' is defined in both ${own} and ${desktop}: rename or remove one`,
    );
    const again = write("desktop-copy.json", claudeDesktop);
    await expect(resolveConfig({ configPath: undefined, env: ENV, overrides: { mcpConfig: [desktop, again] } })).rejects.toThrow(
      `MCP server 'filesystem' is defined in both ${desktop} and ${again}: rename or remove one`,
    );
  });

  test("a missing or broken file is one clear line", async () => {
    await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [join(dir, "nope.json")] } })).rejects.toThrow(`--mcp-config ${join(dir, "nope.json")}: no such file`);
    const bad = write("bad.json", "{ nope");
    await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [bad] } })).rejects.toThrow(`${bad}: not valid JSON`);
  });
});
