/**
 * Test support: the stdio transport tests run on both ways of spawning a server (`Bun.spawn`, the default
 * under Bun, and `node:child_process`). Fixture processes that start servers themselves read the one their
 * test asks for from the environment.
 */
import type { SpawnApi } from "../_server-process.ts";

/** Both spawn APIs, in the order the suites run. */
export const SPAWN_APIS: readonly SpawnApi[] = ["bun", "node"];

/** The variable a test sets for a fixture process. */
export const SPAWN_API_ENV = "AGENTD_TEST_SPAWN_API";

/** The spawn API a fixture process was asked to use (the runtime's default when unset). */
export function fixtureSpawnApi(): SpawnApi | undefined {
  const v = process.env[SPAWN_API_ENV];
  if (v === undefined || v === "") return undefined;
  if (v === "bun" || v === "node") return v;
  throw new Error(`${SPAWN_API_ENV} must be "bun" or "node", not ${JSON.stringify(v)}`);
}
