import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import { overridesFromFlags, parseConfig, resolveConfig, runIdFrom } from "./load.ts";
import { DURATION_FORMS } from "./duration.ts";

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

  test("an MCP server entry picks its version negotiation: auto or initialize (legacy, the older spelling, read as initialize)", () => {
    const c = parseConfig(
      {
        mcpServers: {
          a: { command: "x", versionNegotiation: "auto" },
          b: { url: "https://t.example/mcp", versionNegotiation: "initialize" },
          c: { command: "x", versionNegotiation: "legacy" },
        },
      },
      {},
    );
    expect(c.mcpServers?.a).toMatchObject({ versionNegotiation: "auto" });
    expect(c.mcpServers?.b).toMatchObject({ versionNegotiation: "initialize" });
    expect(c.mcpServers?.c).toMatchObject({ versionNegotiation: "initialize" });
    expect(message(() => parseConfig({ mcpServers: { a: { command: "x", versionNegotiation: "modern" } } }, {}))).toContain(
      "config.mcpServers.a",
    );
    expect(message(() => parseConfig({ mcpServers: { a: { command: "x", versionNegotiation: "modern" } } }, {}))).toContain(
      '"auto" or "initialize"',
    );
  });
});

describe("resolveConfig precedence: flags > env > file", () => {
  test("the run's id: --run-id (overrides.runId), else RUN_ID, else none — read in one place", async () => {
    const env = { AGENT_CONFIG: write("r.json", {}), RUN_ID: "from-env" };
    expect((await resolveConfig({ env })).runId).toBe("from-env");
    expect((await resolveConfig({ env, overrides: overridesFromFlags({ "run-id": "from-flag" }) })).runId).toBe("from-flag");
    expect((await resolveConfig({ env: { AGENT_CONFIG: env.AGENT_CONFIG } })).runId).toBeUndefined();
    expect(runIdFrom({ runId: "from-flag" }, env)).toBe("from-flag");
    expect(runIdFrom({}, env)).toBe("from-env");
    expect(runIdFrom({ runId: "" }, {})).toBeUndefined();
  });

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

  test("agentd.json is JSONC (comments, trailing commas); a parse error names the line and column", async () => {
    const commented = write(
      "commented.json",
      '{\n  // the model\n  "model": { "name": "m", },\n  /* limits */ "limits": { "maxTurns": 4 },\n}\n',
    );
    const r = await resolveConfig({ configPath: commented, env: {} });
    expect(r.config.model?.name).toBe("m");
    expect(r.config.limits?.maxTurns).toBe(4);
    const broken = write("broken.json", '{\n  "model": { "name": "m" }\n  "limits": {}\n}\n');
    await expect(resolveConfig({ configPath: broken, env: {} })).rejects.toThrow(`${broken}:3:3: not valid JSON (comma expected)`);
  });

  test("a file that is not JSON is named with a position, never its text (it may hold secrets)", async () => {
    const env = write(".env", "DB_PASSWORD=averyverysecretvalue\nAPI_KEY=sk-live-0123456789\n");
    const error = await resolveConfig({ configPath: env, env: {} }).catch((e: Error) => e);
    expect(String(error)).toContain(`${env}:1:1: not valid JSON (invalid symbol)`);
    expect(String(error)).not.toContain("DB_PASSWORD");
    expect(String(error)).not.toContain("avery");
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
});

describe("config errors say what is expected, never what was received", () => {
  test("a wrong-typed section is not an unknown field", () => {
    expect(message(() => parseConfig({ limits: 5 }, {}, "agentd.json"))).toBe("agentd.json.limits: expected an object, got a number");
    expect(message(() => parseConfig({ model: "qwen3" }, {}, "agentd.json"))).toBe("agentd.json.model: expected an object, got a string");
    expect(message(() => parseConfig({ scope: null }, {}, "agentd.json"))).toBe("agentd.json.scope: expected an object, got null");
    expect(message(() => parseConfig({ subagents: true }, {}, "agentd.json"))).toBe(
      "agentd.json.subagents: expected an object, got a boolean",
    );
    expect(message(() => parseConfig(42, {}, "agentd.json"))).toBe("agentd.json: expected an object, got a number");
  });

  test("only a key the schema does not know is an unknown field, at any depth", () => {
    expect(message(() => parseConfig({ limits: { zzz: 3 } }, {}))).toBe(
      "config.limits.zzz: unknown field (allowed: see docs/configuration.md)",
    );
    expect(message(() => parseConfig({ model: { name: "m", extra: "x" } }, {}))).toContain("config.model.extra: unknown field");
  });

  test("a near miss of a known key is named, at any depth, from the file, the merged flags or an array item", async () => {
    expect(message(() => parseConfig({ limits: { maxTurn: 3 } }, {}))).toBe(
      'config.limits.maxTurn: unknown field; did you mean "maxTurns"?',
    );
    expect(message(() => parseConfig({ modle: {} }, {}))).toBe('config.modle: unknown field; did you mean "model"?');
    expect(message(() => parseConfig({ triggers: { schedules: [{ cron: "@daily", instruction: "x", concurency: "skip" }] } }, {}))).toBe(
      'config.triggers.schedules[0].concurency: unknown field; did you mean "concurrency"?',
    );
    expect(message(() => parseConfig({ serve: { limits: { maxSession: 2 } } }, {}))).toBe(
      'config.serve.limits.maxSession: unknown field; did you mean "maxSessions"?',
    );
  });

  test("a key written one level too high is pointed to where it belongs", () => {
    expect(message(() => parseConfig({ triggers: { cron: "0 7 * * *" } }, {}))).toBe(
      'config.triggers.cron: unknown field here; "cron" belongs in triggers.schedules[].cron',
    );
    expect(message(() => parseConfig({ maxTurns: 3 }, {}))).toBe(
      'config.maxTurns: unknown field here; "maxTurns" belongs in limits.maxTurns',
    );
  });

  test("valibot's defaults become words: bounds, whole numbers, alternatives, missing keys", () => {
    expect(message(() => parseConfig({ model: { maxRetries: -1 } }, {}))).toBe("config.model.maxRetries: expected at least 0");
    expect(message(() => parseConfig({ model: { maxRetries: 1.5 } }, {}))).toBe("config.model.maxRetries: expected a whole number");
    expect(message(() => parseConfig({ limits: { deadline: true } }, {}))).toBe(`config.limits.deadline: expected ${DURATION_FORMS}`);
    expect(message(() => parseConfig({ triggers: { interval: { instruction: "x" } } }, {}))).toBe(
      "config.triggers.interval.every: required, but missing",
    );
  });

  test("an expanded secret is never echoed", () => {
    const env = { TOK: "sk-LEAKME-123" };
    const cases: unknown[] = [
      { model: { headers: "Bearer ${TOK}" } },
      { model: { temperature: "${TOK}" } },
      { model: { nativeTools: "${TOK}" } },
      { model: { intelligence: "${TOK}" } },
      { limits: { deadline: "${TOK}" } },
      { scope: { allow: "${TOK}" } },
      { mcpServers: { x: { url: "https://t.example/mcp", headers: { A: "${TOK}" }, extra: "${TOK}" } } },
      { triggers: { schedules: [{ cron: "x", instruction: "y", concurrency: "${TOK}" }] } },
    ];
    for (const raw of cases) {
      const text = message(() => parseConfig(raw, env, "agentd.json"));
      expect(text).not.toContain("LEAKME");
      expect(text).toStartWith("agentd.json.");
    }
    expect(message(() => parseConfig({ model: { headers: "Bearer ${TOK}" } }, env))).toBe(
      "config.model.headers: expected an object, got a string",
    );
  });
});

describe("flag and environment errors name the flag or the variable", () => {
  test("a non-numeric or too small number in the environment", async () => {
    await expect(resolveConfig({ env: { AGENT_MAX_TURNS: "abc" } })).rejects.toThrow(
      new AgentdError("E_CONFIG_INVALID", "AGENT_MAX_TURNS: expected a whole number of at least 1"),
    );
    await expect(resolveConfig({ env: { AGENT_MAX_TOKENS: "0" } })).rejects.toThrow(
      "AGENT_MAX_TOKENS: expected a whole number of at least 1",
    );
    await expect(resolveConfig({ env: { AGENT_MAX_TOKENS: "1e3" } })).rejects.toThrow(
      "AGENT_MAX_TOKENS: expected a whole number of at least 1",
    );
    await expect(resolveConfig({ env: { AGENT_MAX_COST_USD: "lots" } })).rejects.toThrow(
      "AGENT_MAX_COST_USD: expected a number of USD, 0 or more",
    );
    expect((await resolveConfig({ env: { AGENT_MAX_COST_USD: "0.5", AGENT_MAX_TURNS: " 4 " } })).config.limits).toEqual({
      maxTurns: 4,
      maxCostUsd: 0.5,
    });
  });

  test("a bad string value from the environment or a flag", async () => {
    const dialect = 'one of "openai", "responses", "anthropic", "gemini"';
    await expect(resolveConfig({ env: { AGENT_DIALECT: "klingon" } })).rejects.toThrow(`AGENT_DIALECT: ${dialect}`);
    await expect(resolveConfig({ env: {}, overrides: { dialect: "foo" } })).rejects.toThrow(
      new AgentdError("E_CONFIG_INVALID", `--dialect: ${dialect}`),
    );
    await expect(resolveConfig({ env: { AGENT_INTELLIGENCE: "nope" } })).rejects.toThrow("AGENT_INTELLIGENCE: a URL such as");
    await expect(resolveConfig({ env: { AGENT_DEADLINE: "soon" } })).rejects.toThrow(`AGENT_DEADLINE: expected ${DURATION_FORMS}`);
    // A bare number was milliseconds once; now it is refused wherever a duration is read, naming the units.
    await expect(resolveConfig({ env: { AGENT_DEADLINE: "30" } })).rejects.toThrow(
      "AGENT_DEADLINE: a bare number has no unit: put ms, s, m, h or d after it",
    );
    expect(message(() => parseConfig({ triggers: { interval: { every: 5, instruction: "x" } } }, {}))).toStartWith(
      "config.triggers.interval.every: a bare number has no unit",
    );
    await expect(resolveConfig({ env: {}, overrides: { maxTurns: 0 } })).rejects.toThrow("--max-turns: at least 1");
    await expect(resolveConfig({ env: {}, overrides: { model: "" } })).rejects.toThrow("--model: a model name");
  });

  test("one table reads the flags, and a bad value is checked in the same words from a flag as from the variable", async () => {
    expect(overridesFromFlags({ "max-turns": "3", deadline: "90s", model: "qwen3", "max-cost": "0.5", json: true, grace: "1s" })).toEqual({
      maxTurns: "3",
      deadline: "90s",
      model: "qwen3",
      maxCostUsd: "0.5",
    });
    const flag = (flags: Record<string, string>) => resolveConfig({ env: {}, overrides: overridesFromFlags(flags) });
    for (const [name, variable, bad, words] of [
      ["max-turns", "AGENT_MAX_TURNS", "abc", "expected a whole number of at least 1"],
      ["max-tokens", "AGENT_MAX_TOKENS", "0", "expected a whole number of at least 1"],
      ["max-cost", "AGENT_MAX_COST_USD", "lots", "expected a number of USD, 0 or more"],
      ["deadline", "AGENT_DEADLINE", "30", "a bare number has no unit: put ms, s, m, h or d after it"],
      ["intelligence", "AGENT_INTELLIGENCE", "nope", "a URL such as"],
    ]) {
      await expect(flag({ [name!]: bad! })).rejects.toThrow(`--${name}: ${words}`);
      await expect(resolveConfig({ env: { [variable!]: bad } })).rejects.toThrow(`${variable}: ${words}`);
    }
    expect((await flag({ "max-turns": " 4 ", "max-cost": "0.5", deadline: "2m" })).config.limits).toEqual({
      maxTurns: 4,
      maxCostUsd: 0.5,
      deadline: 120_000,
    });
  });

  test("operators from flags join the file's; notifications are switched on", async () => {
    const r = await resolveConfig({ env: {}, overrides: { operators: ["local"], serverNotifications: true } });
    expect(r.config.serve?.operators).toEqual(["local"]);
    expect(r.config.capabilities?.serverNotifications).toBe(true);
    expect((await resolveConfig({ env: {}, overrides: { serverNotifications: false } })).config.capabilities).toBeUndefined();
  });

  test("the flag wins over a bad environment value, which is then never read", async () => {
    const r = await resolveConfig({
      env: { AGENT_DIALECT: "klingon", AGENT_MAX_TURNS: "abc" },
      overrides: { dialect: "anthropic", maxTurns: 2 },
    });
    expect(r.config.model?.dialect).toBe("anthropic");
    expect(r.config.limits?.maxTurns).toBe(2);
  });
});

describe("serve.taskSupport", () => {
  test("takes a taskSupport per tool; another value is refused in one line", () => {
    expect(parseConfig({ serve: { taskSupport: { "agent.run": "required" } } }, {}).serve?.taskSupport).toEqual({
      "agent.run": "required",
    });
    let thrown: unknown;
    try {
      parseConfig({ serve: { taskSupport: { "agent.run": "always" } } }, {});
    } catch (e) {
      thrown = e;
    }
    expect(AgentdError.isInstance(thrown) && thrown.code).toBe("E_CONFIG_INVALID");
    expect((thrown as Error).message).toContain("config.serve.taskSupport");
    expect((thrown as Error).message).not.toContain("\n");
  });
});
