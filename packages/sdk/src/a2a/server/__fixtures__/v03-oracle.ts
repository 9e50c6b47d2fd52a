/**
 * The A2A v0.3.0 JSON Schema (`../shared/specs/a2a-v0.3.0.schema.json`) as a test oracle: `checkV03(name,
 * value)` answers the schema's complaints about `value` as definition `name`, or "" when it is valid.
 * Needs `../shared` (declare the tests with `test.skipIf(sharedMissing)`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { sharedDir } from "@agentd/test-support/shared-specs";

const schemaPath = () => join(sharedDir(), "specs", "a2a-v0.3.0.schema.json");

/** Whether the v0.3 schema is missing (the tests that need it are skipped). */
export const v03SchemaMissing = !existsSync(schemaPath());

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The schema's errors for `value` as `#/definitions/<name>`, joined; "" when valid. */
export function checkV03(name: string, value: unknown): string {
  if (!ajv) {
    // strict: false — the official file uses keywords and formats ajv's strict mode rejects.
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(JSON.parse(readFileSync(schemaPath(), "utf8")), "a2a-v0.3");
  }
  let fn = compiled.get(name);
  if (!fn) compiled.set(name, (fn = ajv.compile({ $ref: `a2a-v0.3#/definitions/${name}` })));
  if (fn(value)) return "";
  return `${name}: ${(fn.errors ?? [])
    .slice(0, 6)
    .map((e) => `${e.instancePath} ${e.message ?? ""}`)
    .join("; ")} in ${JSON.stringify(value).slice(0, 400)}`;
}
