/**
 * Recognising another tool's config file, and reading TOML and YAML only when such a file is read: a
 * fresh process that reads JSON files has loaded neither parser (so no start of the CLI pays for them).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { detectFormat, foreignFormat } from "./formats.ts";

describe("detectFormat", () => {
  test("by where the list is, by keys one tool writes, by the usual path", () => {
    expect(detectFormat({ mcp_servers: {} }, "x.toml")).toBe("codex");
    expect(detectFormat({ context_servers: {}, theme: "x" }, "settings.json")).toBe("zed");
    expect(detectFormat({ extensions: {}, GOOSE_MODEL: "m" }, "config.yaml")).toBe("goose");
    expect(detectFormat({ servers: {}, inputs: [] }, "mcp.json")).toBe("vscode");
    expect(detectFormat({ mcpServers: { a: { httpUrl: "http://x" } } }, "settings.json")).toBe("gemini");
    expect(detectFormat({ mcpServers: { a: { serverUrl: "http://x" } } }, "x.json")).toBe("windsurf");
    expect(detectFormat({ mcpServers: { a: { command: "x", autoApprove: [] } } }, "x.json")).toBe("cline");
    expect(detectFormat({ mcpServers: { a: { command: "x" } } }, "/home/me/.gemini/settings.json")).toBe("gemini");
    expect(detectFormat({ mcpServers: { a: { command: "x" } } }, "/p/.cursor/mcp.json")).toBe("cursor");
    expect(detectFormat({ mcpServers: { a: { command: "x" } } }, "/p/.mcp.json")).toBe("claude");
    expect(detectFormat({ theme: "x" }, "settings.json")).toBeUndefined();
  });

  test("--mcp-config-format takes the names it lists", () => {
    expect(foreignFormat("codex")).toBe("codex");
    expect(() => foreignFormat("toml")).toThrow(
      "--mcp-config-format 'toml': expected one of claude, cursor, cline, windsurf, vscode, gemini, codex, goose, zed",
    );
  });
});

test("the TOML and YAML parsers are loaded only when a TOML or YAML file is read", async () => {
  const fixtures = join(import.meta.dir, "..", "..", "..", "..", "cli", "src", "__fixtures__", "mcp-config");
  const code = `
    const { resolveConfig } = await import(${JSON.stringify(join(import.meta.dir, "..", "index.ts"))});
    const loaded = () => Object.keys(require.cache).filter((k) => /smol-toml|node_modules[\\\\/]yaml[\\\\/]/.test(k)).length > 0;
    const read = (file, env = {}) => resolveConfig({ configPath: ${JSON.stringify(join(fixtures, "agentd.json"))}, env, overrides: { mcpConfig: [${JSON.stringify(fixtures)} + "/" + file] } });
    await read("claude_desktop_config.json");
    await read("zed-settings.json", { DOCS_TOKEN: "t" });
    const afterJson = loaded();
    await read("codex-config.toml", { FIGMA_OAUTH_TOKEN: "t" });
    await read("goose-config.yaml", { GITHUB_PERSONAL_ACCESS_TOKEN: "t" });
    console.log(JSON.stringify({ afterJson, afterOthers: loaded() }));
  `;
  const child = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
  const [out, err, exit] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(err).toBe("");
  expect(exit).toBe(0);
  expect(JSON.parse(out)).toEqual({ afterJson: false, afterOthers: true });
});
