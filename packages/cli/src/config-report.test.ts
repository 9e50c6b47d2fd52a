/**
 * `--mcp-config` with each tool's file as that tool writes it (`__fixtures__/mcp-config/`): the servers
 * agentd gets from it, the servers left out (each a warning line), and the one warning line naming the
 * keys not taken — checked through `resolveConfig` and `reportConfigNotes`, as `agentd run` and
 * `agentd mcp` print them.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LogRecord, memoryLogger, resolveConfig } from "@agentd/sdk";
import { reportConfigNotes } from "./config-report.ts";

const FIXTURES = join(import.meta.dir, "__fixtures__", "mcp-config");

/** Read one fixture as `--mcp-config` does; the servers, and the warning and debug records a command prints. */
async function read(name: string, env: Record<string, string> = {}, format?: string) {
  const file = join(FIXTURES, name);
  const resolved = await resolveConfig({
    configPath: join(FIXTURES, "agentd.json"), // `{}`: the servers are the file's alone
    env,
    overrides: { mcpConfig: [file], ...(format ? { mcpConfigFormat: [format] } : {}) },
  });
  const log = memoryLogger();
  reportConfigNotes(resolved, log);
  const warnings = log.records.filter((r) => r.level === "warn");
  const fields = ({ ts: _ts, level: _level, ...rest }: LogRecord) => rest;
  return {
    file,
    servers: resolved.config.mcpServers,
    warnings: warnings.map(fields),
    debug: log.records.filter((r) => r.level === "debug").map(fields),
  };
}

const notTaken = (file: string, tool: string, keys: string) => ({
  event: "config.keys_not_taken",
  file,
  tool,
  keys,
  hint: "these settings of the other tool have no effect in agentd; AGENT_LOG_LEVEL=debug says why for each",
});

describe("--mcp-config: each tool's file, as it writes it", () => {
  test("Gemini CLI settings.json: httpUrl, timeout in ms, includeTools/excludeTools, $VAR, mcp.excluded; an SSE url is left out; trust is named", async () => {
    const r = await read("gemini-settings.json", { DB_CONNECTION_STRING: "db://x", EXTERNAL_API_KEY: "ek", HTTP_TOKEN: "ht" });
    expect(r.servers).toEqual({
      pythonTools: {
        command: "python",
        args: ["-m", "my_mcp_server", "--port", "8080"],
        cwd: "./mcp-servers/python",
        env: { DATABASE_URL: "db://x", API_KEY: "ek" },
        timeout: 15_000,
        tools: { include: ["safe_tool", "file_reader"], exclude: ["dangerous_tool"] },
      },
      httpServer: { url: "http://localhost:3000/mcp", headers: { Authorization: "Bearer ht" }, timeout: 5000 },
      dockerTools: { command: "docker", args: ["run", "-i", "--rm", "my-mcp-server:latest"], disabled: true },
    });
    expect(r.warnings).toEqual([
      {
        event: "config.server_skipped",
        server: "sseServer",
        reason: `MCP server 'sseServer' (${r.file}) left out: its url is an HTTP+SSE endpoint (Gemini's url), a transport agentd does not speak: give the server's Streamable HTTP endpoint as httpUrl`,
      },
      notTaken(r.file, "Gemini CLI", "pythonTools.trust, dockerTools.trust"),
    ]);
    // Every key not taken is one debug line with why; a label (description) only there.
    expect(r.debug.map((d) => `${d.server}.${d.key}`)).toEqual(["pythonTools.trust", "httpServer.description", "dockerTools.trust"]);
    expect(r.debug[0]?.why).toContain("agentd asks no one");
  });

  test("Codex config.toml: bearer_token_env_var → Authorization, env_vars, env_http_headers, tool_timeout_sec, enabled, tool lists", async () => {
    const r = await read("codex-config.toml", { FIGMA_OAUTH_TOKEN: "ft", HTTPS_PROXY: "http://proxy:3128" });
    expect(r.servers).toEqual({
      context7: {
        command: "npx",
        args: ["-y", "@upstash/context7-mcp"],
        env: { HTTPS_PROXY: "http://proxy:3128", MY_ENV_VAR: "MY_ENV_VALUE" },
        timeout: 60_000,
        tools: { include: ["resolve-library-id", "get-library-docs"] },
      },
      // FIGMA_ORG_ID is not set: Codex leaves that header out, and so does agentd (named in the warning).
      figma: { url: "https://mcp.figma.com/mcp", headers: { "X-Figma-Region": "us-east-1", Authorization: "Bearer ft" } },
      chrome: { command: "npx", args: ["-y", "chrome-devtools-mcp@latest"], disabled: true, tools: { exclude: ["evaluate_script"] } },
    });
    expect(r.warnings).toEqual([
      {
        event: "config.server_skipped",
        server: "linear",
        reason: `MCP server 'linear' (${r.file}) left out: bearer_token_env_var names LINEAR_API_KEY, which is not set: set it in the environment`,
      },
      notTaken(r.file, "OpenAI Codex", "context7.startup_timeout_sec, figma.env_http_headers"),
    ]);
  });

  test("goose config.yaml: cmd/envs/env_keys, uri, timeout in seconds, enabled, available_tools; built-in and SSE extensions are left out", async () => {
    const r = await read("goose-config.yaml", { GITHUB_PERSONAL_ACCESS_TOKEN: "gh" });
    expect(r.servers).toEqual({
      github: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "gh" },
        timeout: 300_000,
      },
      memory: {
        command: "uvx",
        args: [],
        env: { MEMORY_DIR: "/home/me/.memory" },
        disabled: true,
        timeout: 120_000,
        tools: { include: ["remember", "recall"] },
      },
      remote: { url: "https://tools.example/mcp", headers: { "X-Team": "platform" }, timeout: 300_000 },
    });
    expect(r.warnings.map((w) => w.reason)).toEqual([
      `MCP server 'developer' (${r.file}) left out: a goose builtin extension ('developer'), part of goose itself, which agentd cannot run`,
      `MCP server 'oldsse' (${r.file}) left out: an HTTP+SSE extension, a transport agentd does not speak: give the server's Streamable HTTP endpoint (type streamable_http)`,
    ]);
    // Only labels were not taken (name, description, bundled): debug lines, no warning line.
    expect(r.warnings.some((w) => w.event === "config.keys_not_taken")).toBe(false);
    expect(new Set(r.debug.map((d) => d.key))).toEqual(new Set(["name", "description", "bundled"]));
  });

  test("goose: a variable goose keeps in its keyring and the environment lacks leaves that extension out, saying which", async () => {
    const r = await read("goose-config.yaml", {});
    expect(Object.keys(r.servers ?? {})).toEqual(["memory", "remote"]);
    expect(r.warnings.map((w) => w.reason)).toContain(
      `MCP server 'github' (${r.file}) left out: needs GITHUB_PERSONAL_ACCESS_TOKEN (env_keys; goose keeps them in its keyring): set it in the environment`,
    );
  });

  test("Zed settings.json: context_servers (JSONC), the older command object, url, enabled; an extension's server is left out", async () => {
    const r = await read("zed-settings.json", { DOCS_TOKEN: "dt" });
    expect(r.servers).toEqual({
      "hexdocs-mcp": { command: "npx", args: ["-y", "hexdocs-mcp@0.5.0"], env: {} },
      postgres: { command: "/usr/local/bin/postgres-mcp", args: ["postgresql://localhost/db"], env: { PGSSLMODE: "disable" } },
      "remote-docs": { url: "https://docs.example/mcp", headers: { Authorization: "Bearer dt" } },
      paused: { command: "paused-mcp", args: [], disabled: true },
    });
    expect(r.warnings).toEqual([
      {
        event: "config.server_skipped",
        server: "mcp-server-github",
        reason: `MCP server 'mcp-server-github' (${r.file}) left out: provided by a Zed extension ('mcp-server-github'), which agentd cannot run: give it a command (or url) of its own`,
      },
      notTaken(r.file, "Zed", "postgres.settings"),
    ]);
  });

  test("Windsurf mcp_config.json: serverUrl, disabled, disabledTools", async () => {
    const r = await read("windsurf-mcp_config.json", { GITHUB_TOKEN: "g", FIGMA_TOKEN: "f" });
    expect(r.servers).toEqual({
      github: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "g" },
        tools: { exclude: ["delete_repository"] },
      },
      figma: { url: "https://mcp.figma.com/mcp", headers: { Authorization: "Bearer f" } },
      sleepy: { command: "sleepy-mcp", disabled: true },
    });
    expect(r.warnings).toEqual([]);
  });

  test("Cline cline_mcp_settings.json: timeout in seconds, disabled; autoApprove and alwaysAllow are named", async () => {
    const r = await read("cline_mcp_settings.json", { OPENWEATHER_API_KEY: "ow" });
    expect(r.servers).toEqual({
      weather: {
        command: "node",
        args: ["/Users/me/Documents/Cline/MCP/weather-server/build/index.js"],
        env: { OPENWEATHER_API_KEY: "ow" },
        disabled: false,
        timeout: 120_000,
      },
      remote: { type: "streamableHttp", url: "https://tools.example/mcp", disabled: true },
    });
    expect(r.warnings).toEqual([notTaken(r.file, "Cline", "weather.autoApprove, remote.alwaysAllow")]);
  });

  test("VS Code mcp.json with gallery installs: gallery and version are labels; an owner/server name is renamed; ${input:…} leaves a server out", async () => {
    const r = await read("vscode-mcp.json");
    expect(r.servers).toEqual({
      "github_github-mcp-server": { type: "http", url: "https://api.githubcopilot.com/mcp/" },
      "microsoft_playwright-mcp": { type: "stdio", command: "npx", args: ["@playwright/mcp@latest"] },
    });
    expect(r.warnings.map((w) => [w.event, w.server])).toEqual([
      ["config.server_skipped", "perplexity"],
      ["config.server_renamed", "github_github-mcp-server"],
      ["config.server_renamed", "microsoft_playwright-mcp"],
    ]);
    expect(r.warnings[1]?.reason).toBe(
      `MCP server 'github/github-mcp-server' (${r.file}) is 'github_github-mcp-server' here: agentd's server names use letters, digits, _ . - ('/' separates a server from its tools)`,
    );
    expect(r.debug.map((d) => d.key)).toEqual(["gallery", "version", "gallery", "version"]);
  });

  test("Claude Desktop and Cursor files read as before, with nothing to warn about", async () => {
    const desktop = await read("claude_desktop_config.json");
    expect(desktop.servers).toEqual({
      filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop", "/Users/me/Downloads"] },
    });
    expect(desktop.warnings).toEqual([]);
    const cursor = await read(join("cursor", ".cursor", "mcp.json"), { LINEAR_TOKEN: "lt" });
    expect(cursor.servers).toEqual({
      linear: { url: "https://mcp.linear.app/mcp", headers: { Authorization: "Bearer lt" } },
      local: { command: join(FIXTURES, "cursor", "bin", "server"), args: ["--stdio"] },
    });
    expect(cursor.warnings).toEqual([]);
  });

  test("--mcp-config-format names the format: a Gemini file with nothing only Gemini writes is read as Gemini's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-mcp-format-"));
    try {
      const file = join(dir, "settings.json");
      writeFileSync(file, JSON.stringify({ mcpServers: { http: { httpUrl: "http://127.0.0.1:3000/mcp", timeout: 5000 } } }));
      // httpUrl gives it away; without it, the timeout's unit is the question.
      writeFileSync(join(dir, "plain.json"), JSON.stringify({ mcpServers: { s: { command: "srv", timeout: 5000 } } }));
      const plain = join(dir, "plain.json");
      const asClaude = await resolveConfig({ configPath: join(FIXTURES, "agentd.json"), env: {}, overrides: { mcpConfig: [plain] } });
      expect(asClaude.config.mcpServers).toEqual({ s: { command: "srv" } });
      expect(asClaude.foreignKeysNotTaken?.[0]?.keys.map((k) => k.key)).toEqual(["timeout"]);
      const asGemini = await resolveConfig({
        configPath: join(FIXTURES, "agentd.json"),
        env: {},
        overrides: { mcpConfig: [plain, file], mcpConfigFormat: ["gemini"] },
      });
      expect(asGemini.config.mcpServers).toEqual({
        s: { command: "srv", timeout: 5000 },
        http: { url: "http://127.0.0.1:3000/mcp", timeout: 5000 },
      });
      await expect(read("codex-config.toml", {}, "yaml-please")).rejects.toThrow(
        "--mcp-config-format 'yaml-please': expected one of claude, cursor, cline, windsurf, vscode, gemini, codex, goose, zed",
      );
      await expect(
        resolveConfig({ env: {}, overrides: { mcpConfig: [plain, file, file], mcpConfigFormat: ["gemini", "claude"] } }),
      ).rejects.toThrow("--mcp-config-format given 2 times for 3 --mcp-config files");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a TOML or YAML file that is not valid is one line naming the place", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-mcp-syntax-"));
    try {
      const toml = join(dir, "config.toml");
      writeFileSync(toml, '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y",\n');
      await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [toml] } })).rejects.toThrow(`${toml}:4:1: not valid TOML (`);
      const yaml = join(dir, "config.yaml");
      writeFileSync(yaml, "extensions:\n  github:\n    cmd: npx\n   args: [\n");
      await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [yaml] } })).rejects.toThrow(`${yaml}:`);
      await expect(resolveConfig({ env: {}, overrides: { mcpConfig: [yaml] } })).rejects.toThrow("not valid YAML (");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
