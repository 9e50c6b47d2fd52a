import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import { parseConfig, resolveConfig } from "./load.ts";

const dir = mkdtempSync(join(tmpdir(), "agentd-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === "string" ? body : JSON.stringify(body));
  return p;
};
const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(AgentdError.isInstance(e)).toBe(true);
    return (e as AgentdError).message;
  }
  throw new Error("expected a config error");
};

describe("parseConfig", () => {
  test("accepts the design's example shape", () => {
    const c = parseConfig(
      {
        model: { intelligence: "http://127.0.0.1:11434/v1", dialect: "openai", name: "qwen3", apiKeyEnv: "OPENAI_API_KEY" },
        mcpServers: {
          fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"], env: {} },
          remote: { url: "https://tools.example/mcp", headers: { Authorization: "Bearer ${TOOLS_TOKEN}" } },
        },
        limits: { maxTurns: 20, maxTokens: 200000, deadline: "10m", maxCostUsd: 1 },
        scope: { allow: ["fs/*", "remote/search"] },
      },
      { TOOLS_TOKEN: "t0k" },
    );
    expect(c.limits?.deadline).toBe(600_000);
    expect(c.mcpServers?.remote).toMatchObject({ headers: { Authorization: "Bearer t0k" } });
  });

  test("a bad value is one line naming the field", () => {
    expect(message(() => parseConfig({ limits: { maxTurns: 0 } }, {}))).toBe("config.limits.maxTurns: at least 1");
    expect(message(() => parseConfig({ limits: { deadline: "soon" } }, {}))).toContain("config.limits.deadline:");
    expect(message(() => parseConfig({ model: { dialect: "cohere" } }, {}))).toContain('config.model.dialect: one of "openai"');
    expect(message(() => parseConfig({ modle: {} }, {}))).toContain("config.modle: unknown field");
    expect(message(() => parseConfig({ mcpServers: { x: { args: [] } } }, {}))).toContain("config.mcpServers.x");
  });
});

describe("resolveConfig precedence: flags > env > file", () => {
  test("each layer overrides the one below", async () => {
    const file = write("a.json", { model: { intelligence: "http://127.0.0.1:1/v1", name: "from-file" }, limits: { maxTurns: 5 } });
    const env = { AGENT_CONFIG: file, AGENT_MODEL: "from-env", AGENT_MAX_TURNS: "7", AGENT_API_KEY: "sk-env", RUN_ID: "r1" };
    const a = await resolveConfig({ env });
    expect(a.config.model?.name).toBe("from-env");
    expect(a.config.limits?.maxTurns).toBe(7);
    expect(a.apiKey).toBe("sk-env");
    expect(a.runId).toBe("r1");
    expect(a.file).toBe(file);
    const b = await resolveConfig({ env, overrides: { model: "from-flag", maxTurns: 9 } });
    expect(b.config.model?.name).toBe("from-flag");
    expect(b.config.limits?.maxTurns).toBe(9);
    expect(b.config.model?.intelligence).toBe("http://127.0.0.1:1/v1");
  });

  test("a named missing file and bad JSON are clear errors; an absent default file is fine", async () => {
    await expect(resolveConfig({ env: { AGENT_CONFIG: join(dir, "nope.json") } })).rejects.toThrow("does not exist");
    const bad = write("bad.json", "{ nope");
    await expect(resolveConfig({ configPath: bad, env: {} })).rejects.toThrow("not valid JSON");
    const none = await resolveConfig({ env: {}, configPath: undefined });
    expect(none.file).toBeUndefined();
  });

  test("apiKeyEnv names the variable holding the key", async () => {
    const file = write("k.json", { model: { apiKeyEnv: "MY_KEY" } });
    const r = await resolveConfig({ configPath: file, env: { MY_KEY: "secret" } });
    expect(r.apiKey).toBe("secret");
  });

  test("an empty section the user wrote is kept (it switches a feature on with defaults)", async () => {
    const file = write("s.json", { subagents: {} });
    const r = await resolveConfig({ configPath: file, env: {} });
    expect(r.config.subagents).toEqual({});
    expect(r.config.limits).toBeUndefined();
  });

  test("a bad env value is reported like a file value", async () => {
    await expect(resolveConfig({ env: { AGENT_DIALECT: "klingon" } })).rejects.toThrow("settings.model.dialect");
  });
});
