/**
 * The JSON Schema of `agentd.json`, generated from the SDK's valibot schema (`@valibot/to-json-schema`) so
 * editors complete and check the file (its `$schema` names the published copy). Written to
 * `packages/cli/schema/agentd-config.v1.json`: `bun scripts/config-schema.ts` after a schema change; a test
 * (`packages/sdk/src/config/json-schema.test.ts`) fails while the committed file is out of date.
 *
 * The JSON Schema is looser than agentd's own check: valibot checks and transforms (durations, URL forms,
 * the field-by-field hints of a server entry) have no JSON Schema form and are left out; what it states
 * (fields, types, enums, required fields, no unknown keys) agentd enforces too.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ConversionConfig, toJsonSchema } from "@valibot/to-json-schema";
import { ConfigSchema } from "../packages/sdk/src/config/schema.ts";
import { HttpServerSchema, McpServerConfigSchema, StdioServerSchema } from "../packages/sdk/src/config/servers-schema.ts";

/** The format version of agentd.json the file describes (in its name); bump on an incompatible change. */
export const CONFIG_FORMAT = "v1";

/** Where the schema is committed; `@agentd/cli` ships it (`scripts/build-cli.ts`), as projects install that. */
export const CONFIG_SCHEMA_FILE = join(import.meta.dir, "..", "packages", "cli", "schema", `agentd-config.${CONFIG_FORMAT}.json`);

const config: ConversionConfig = {
  typeMode: "input",
  errorMode: "ignore",
  // A server entry (`McpServerConfigSchema`) is a pipe from `unknown` through a custom check (for better
  // messages) to the stdio or the HTTP schema: the converter sees its `unknown` start, the config's only one.
  overrideSchema: (context) => {
    if (context.valibotSchema.type !== McpServerConfigSchema.type) return undefined;
    const { $schema: _s, ...stdio } = toJsonSchema(StdioServerSchema, config);
    const { $schema: _h, ...http } = toJsonSchema(HttpServerSchema, config);
    return { anyOf: [stdio, http] };
  },
};

/** The JSON Schema, as the text committed (two-space JSON and a final newline). */
export function configJsonSchemaText(): string {
  const schema = toJsonSchema(ConfigSchema, config);
  const titled = { ...schema, title: `agentd.json (agentd configuration, format ${CONFIG_FORMAT})` };
  return `${JSON.stringify(titled, null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(CONFIG_SCHEMA_FILE, configJsonSchemaText());
  console.log(`wrote ${CONFIG_SCHEMA_FILE}`);
}
