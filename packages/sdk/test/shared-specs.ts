/**
 * Where the official schemas live. The `../shared` folder beside the repository may be absent in a clone:
 * tests that need it are named `[needs ../shared] …` and, when it is absent, say so in one line and assert
 * nothing (the one allowed exception). `AGENTD_SHARED_DIR` points elsewhere.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** The tag in the name of every test that needs `../shared`. */
export const NEEDS_SHARED = "[needs ../shared]";

/** The shared folder: `$AGENTD_SHARED_DIR`, else `<repo>/../shared`. */
export function sharedDir(): string {
  const fromEnv = process.env.AGENTD_SHARED_DIR;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  // This file is <repo>/packages/sdk/test/shared-specs.ts.
  return fileURLToPath(new URL("../../../../shared", import.meta.url));
}

/** The official JSON Schema file of an MCP revision. */
export const officialSchemaPath = (revision: string): string =>
  join(sharedDir(), "specs", `mcp-${revision}.schema.json`);

/** Whether the official schemas are present (checked once per process). */
let available: boolean | undefined;
export function sharedSpecsAvailable(): boolean {
  available ??= existsSync(officialSchemaPath("2025-11-25"));
  return available;
}

/** Reported at most once per test file: why `[needs ../shared]` tests assert nothing. */
let told = false;
/**
 * Guard for a `[needs ../shared]` test: true when the specs are present; otherwise prints one clear line
 * (once) and returns false, and the test returns without asserting.
 */
export function requireShared(): boolean {
  if (sharedSpecsAvailable()) return true;
  if (!told) {
    told = true;
    console.log(
      `${NEEDS_SHARED} not run: official schemas not found at ${join(sharedDir(), "specs")} ` +
        "(the ../shared folder is absent; set AGENTD_SHARED_DIR to run them)",
    );
  }
  return false;
}
