/**
 * The published JSON Schema of agentd.json (`packages/cli/schema/agentd-config.v1.json`): generated from the
 * valibot schema by `scripts/config-schema.ts`, committed, and checked here to be up to date. An independent
 * validator (ajv) then accepts what agentd accepts and refuses the mistakes it can state (unknown keys,
 * wrong types, values out of range).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { CONFIG_SCHEMA_FILE, configJsonSchemaText } from "./config-schema.ts";
import { parseConfig } from "../packages/sdk/src/config/load.ts";

const committed = readFileSync(CONFIG_SCHEMA_FILE, "utf8");
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(committed));

describe("the JSON Schema of agentd.json", () => {
  test("the committed file is what the valibot schema generates (run `bun scripts/config-schema.ts` after a change)", () => {
    expect(committed).toBe(configJsonSchemaText());
  });

  test("a full config that agentd accepts validates", () => {
    const config = {
      $schema: `./node_modules/@agentd/cli/schema/${basename(CONFIG_SCHEMA_FILE)}`,
      model: { intelligence: "http://127.0.0.1:11434/v1", dialect: "openai", name: "qwen3", apiKeyEnv: "OPENAI_API_KEY", timeout: "2m" },
      instructions: "You are helpful",
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"], required: false, disabled: false },
        docs: {
          type: "streamableHttp",
          url: "https://docs.example/mcp",
          headers: { Authorization: "Bearer ${TOKEN}" },
          versionNegotiation: "auto",
        },
      },
      limits: { maxTurns: 8, deadline: "5m", maxCostUsd: 1.5 },
    };
    expect(() => parseConfig(config, { TOKEN: "t" })).not.toThrow();
    expect(validate(config)).toBe(true);
  });

  test("the mistakes it can state are refused, as agentd refuses them", () => {
    const cases: unknown[] = [
      { modle: { name: "x" } },
      { limits: { maxTurns: 0 } },
      { model: { dialect: "cohere" } },
      { mcpServers: { fs: { command: "npx", arg: [] } } },
      { mcpServers: { fs: { url: "https://x.example/mcp", type: "sse" } } },
    ];
    for (const config of cases) {
      expect(() => parseConfig(config, {})).toThrow();
      expect(validate(config)).toBe(false);
    }
  });
});
