/**
 * Where the official schemas live. The `../../sdk/src/shared` folder beside the repository may be absent in a clone:
 * tests that need it are named `[needs ../shared] …` and declared with `test.skipIf(sharedMissing)`, so
 * the runner reports them skipped, with one line saying why. `AGENTD_SHARED_DIR` points elsewhere.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The tag in the name of every test that needs `../../sdk/src/shared`. */
export const NEEDS_SHARED = "[needs ../shared]";

/** The shared folder: `$AGENTD_SHARED_DIR`, else `<repo>/../shared`. */
export function sharedDir(): string {
  const fromEnv = process.env.AGENTD_SHARED_DIR;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  // This file is <repo>/packages/sdk/src/__fixtures__/shared-specs.ts.
  return fileURLToPath(new URL("../../../../shared", import.meta.url));
}

/** The official JSON Schema file of an MCP revision. */
export const officialSchemaPath = (revision: string): string => join(sharedDir(), "specs", `mcp-${revision}.schema.json`);

/** Whether the official schemas are present (checked once per process). */
let available: boolean | undefined;
export function sharedSpecsAvailable(): boolean {
  available ??= existsSync(officialSchemaPath("2025-11-25"));
  return available;
}

/**
 * True when the official schemas are absent. Every `[needs ../shared]` test is declared with
 * `test.skipIf(sharedMissing)(…)`, so the runner reports it skipped (never passed with nothing asserted).
 */
export const sharedMissing: boolean = !sharedSpecsAvailable();
if (sharedMissing) {
  console.log(
    `${NEEDS_SHARED} skipped: official schemas not found at ${join(sharedDir(), "specs")} ` +
      "(the ../shared folder is absent; set AGENTD_SHARED_DIR to run them)",
  );
}
