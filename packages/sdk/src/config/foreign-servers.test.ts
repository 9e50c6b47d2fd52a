import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
      format: "claude",
      key: "mcpServers",
      servers: {
        filesystem: claudeDesktop.mcpServers.filesystem,
        github: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: { GITHUB_PERSONAL_ACCESS_TOKEN: "gh-1" } },
      },
      skipped: {},
      ignored: [],
      renamed: {},
    });
    expect(parseForeignServers(claudeCode, ".mcp.json", {}).servers.docs).toEqual({
      type: "http",
      url: "https://docs.example/mcp",
      headers: { Authorization: "Bearer anonymous" },
    });
    expect(parseForeignServers(cursor, "mcp.json", ENV).servers.search).toEqual({
      url: "https://search.example/mcp",
      headers: { "X-Key": "sk-2" },
    });
    // Cline's timeout is seconds; its approval lists are Cline's business (named, not taken).
    const fromCline = parseForeignServers(cline, "cline_mcp_settings.json", {});
    expect(fromCline.format).toBe("cline");
    expect(fromCline.servers.weather).toEqual({ command: "node", args: ["weather.js"], disabled: false, timeout: 60_000 });
    expect(fromCline.ignored.map((k) => k.key)).toEqual(["autoApprove", "alwaysAllow"]);
  });

  test("VS Code keeps servers; ${env:NAME} reads the environment; inputs and dev are ignored", () => {
    const r = parseForeignServers(vscode, ".vscode/mcp.json", ENV);
    expect(r.key).toBe("servers");
    expect(r.servers).toEqual({
      fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"], env: { HOME_DIR: "/home/me" } },
      remote: { type: "http", url: "https://remote.example/mcp" },
    });
  });

  test("${input:…} and ${command:…} leave that server out, naming it and why; the file's other servers load", () => {
    const file = {
      ...vscode,
      servers: {
        gh: { command: "gh-mcp", env: { TOKEN: "${input:api-key}" } },
        picker: { command: "pick", args: ["${command:extension.pickFile}"] },
        fine: { command: "fine-mcp" },
      },
    };
    const r = parseForeignServers(file, ".vscode/mcp.json", ENV);
    expect(r.servers).toEqual({ fine: { command: "fine-mcp" } });
    expect(r.skipped).toEqual({
      gh: "MCP server 'gh' (.vscode/mcp.json) left out: ${input:api-key} is an input prompt the editor shows, which agentd cannot: use ${env:NAME} to read the value from the environment",
      picker:
        "MCP server 'picker' (.vscode/mcp.json) left out: ${command:extension.pickFile} runs an editor command, which agentd cannot: use ${env:NAME} to read the value from the environment",
    });
  });

  test("the editors' predefined variables: ${workspaceFolder} (the folder holding .vscode/), ${userHome}, ${pathSeparator}, ${/}", () => {
    const file = {
      servers: {
        local: {
          command: "${workspaceFolder}/bin/server",
          args: ["--home", "${userHome}${pathSeparator}data", "${workspaceFolderBasename}${/}x"],
          cwd: "${workspaceFolder}",
        },
      },
    };
    const r = parseForeignServers(file, "/work/proj/.vscode/mcp.json", { HOME: "/home/me" });
    expect(r.servers.local).toEqual({ command: "/work/proj/bin/server", args: ["--home", "/home/me/data", "proj/x"], cwd: "/work/proj" });
    // Cursor's project file sits in .cursor/; Claude Code's .mcp.json in the project itself.
    expect(parseForeignServers(file, "/work/proj/.cursor/mcp.json", { HOME: "/h" }).servers.local).toMatchObject({ cwd: "/work/proj" });
    expect(parseForeignServers(file, "/work/proj/.mcp.json", { HOME: "/h" }).servers.local).toMatchObject({ cwd: "/work/proj" });
  });

  test("an unset ${env:NAME} is reported as written", () => {
    const file = { servers: { s: { type: "http", url: "https://x.example/mcp", headers: { "X-Key": "${env:SDKX_KEY}" } } } };
    expect(() => parseForeignServers(file, "mcp.json", {})).toThrow(
      "mcp.json.servers.s.headers.X-Key: environment variable SDKX_KEY is not set (referenced as ${env:SDKX_KEY})",
    );
  });

  test("VS Code's envFile is read (dotenv format) under the entry's env, which wins; a missing one leaves that server out", () => {
    const project = join(dir, "proj");
    mkdirSync(join(project, ".vscode"), { recursive: true });
    writeFileSync(join(project, ".env"), '# comment\nAPI_KEY=from-file\nexport REGION=eu\nQUOTED="a b"\nKEPT=file\n');
    const file = {
      servers: {
        api: { command: "api-mcp", envFile: "${workspaceFolder}/.env", env: { KEPT: "entry" } },
        relative: { command: "api-mcp", envFile: ".env" },
        missing: { command: "other", envFile: "${workspaceFolder}/.env.local" },
      },
    };
    const vscodeFile = join(project, ".vscode", "mcp.json");
    const r = parseForeignServers(file, vscodeFile, {});
    expect(r.servers.api).toEqual({ command: "api-mcp", env: { API_KEY: "from-file", REGION: "eu", QUOTED: "a b", KEPT: "entry" } });
    expect(r.servers.relative).toMatchObject({ env: { API_KEY: "from-file" } });
    expect(r.skipped.missing).toBe(
      `MCP server 'missing' (${vscodeFile}) left out: ${vscodeFile}.servers.missing.envFile: ${join(project, ".env.local")} does not exist`,
    );
  });

  test("entries get agentd.json's checks: SSE, typos, a missing variable", () => {
    expect(() => parseForeignServers({ mcpServers: { old: { type: "sse", url: "https://x.example/sse" } } }, ".mcp.json", {})).toThrow(
      ".mcp.json.mcpServers.old.type: the 2024-11-05 HTTP+SSE transport is not supported",
    );
    expect(() => parseForeignServers({ servers: { s: { command: "x", arg: [] } } }, "mcp.json", {})).toThrow(
      'mcp.json.servers.s.arg: unknown field; did you mean "args"?',
    );
    expect(() => parseForeignServers(claudeDesktop, "c.json", {})).toThrow(
      "c.json.mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: environment variable GH_TOKEN is not set",
    );
  });

  test("a file without a server list says which keys were expected", () => {
    expect(() => parseForeignServers({ globalShortcut: "x" }, "c.json", {})).toThrow(
      'c.json: no server list: expected "mcpServers" (Claude Desktop, Claude Code, Cursor, Cline, Windsurf, Gemini CLI), "servers" (VS Code), ' +
        '"context_servers" (Zed), [mcp_servers] (Codex config.toml) or "extensions" (goose config.yaml); or name the format with --mcp-config-format',
    );
    expect(() => parseForeignServers([], "c.json", {})).toThrow('c.json: expected an object holding a server list, such as "mcpServers"');
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
    await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [join(dir, "nope.json")] } })).rejects.toThrow(
      `--mcp-config ${join(dir, "nope.json")}: no such file`,
    );
    const bad = write("bad.json", "{ nope");
    await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [bad] } })).rejects.toThrow(
      `${bad}:1:3: not valid JSON (invalid symbol)`,
    );
  });

  test("files are read as editors write them: comments and trailing commas (VS Code's JSONC)", async () => {
    const jsonc = write(
      "vscode-jsonc.json",
      `{
  // Servers for this workspace
  "inputs": [],
  "servers": {
    /* the fetch server */
    "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch",], },
  },
}`,
    );
    const r = await resolveConfig({ env: {}, overrides: { mcpConfig: [jsonc] } });
    expect(r.config.mcpServers).toEqual({ fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"] } });
  });

  test("servers left out of an editor file are reported by resolveConfig; the others load", async () => {
    const file = write("with-input.json", { servers: { gh: { command: "gh", env: { T: "${input:token}" } }, ok: { command: "ok" } } });
    const r = await resolveConfig({ env: {}, overrides: { mcpConfig: [file] } });
    expect(Object.keys(r.config.mcpServers ?? {})).toEqual(["ok"]);
    expect(Object.keys(r.skippedServers ?? {})).toEqual(["gh"]);
    expect(r.skippedServers?.gh).toContain("${input:token} is an input prompt the editor shows");
  });
});
