/**
 * The root supervisor a configuration describes, seen from a real (scripted) child process: the start
 * params it is given.
 */
import { afterEach, expect, test } from "bun:test";
import { resolve } from "node:path";
import { parseConfig } from "../../config/load.ts";
import { nullLogger } from "../../log.ts";
import type { Supervisor } from "../../supervisor/supervisor.ts";
import { supervisorFromConfig } from "./subagents-from-config.ts";

const CHILD = resolve(import.meta.dir, "../../supervisor/__fixtures__/scripted-child.ts");
let sup: Supervisor | undefined;
afterEach(async () => {
  await sup?.shutdown();
  sup = undefined;
});

test("a child's servers carry limits.mcpTimeout / mcpMaxTotalTimeout unless their entry sets its own", async () => {
  const config = parseConfig(
    {
      model: { intelligence: "http://127.0.0.1:9/v1", name: "m", timeout: "2m" },
      mcpServers: { fs: { command: "fs-server" }, slow: { command: "slow-server", timeout: "5m" } },
      limits: { mcpTimeout: "90s", mcpMaxTotalTimeout: "2h" },
      subagents: {},
    },
    {},
  );
  sup = supervisorFromConfig(config, nullLogger, { command: { command: process.execPath, args: [CHILD], env: {} } });
  const r = await sup!.run({ instruction: "start-params" });
  expect(r.status).toBe("completed");
  const { start } = JSON.parse(r.result?.text as string);
  expect(start.model.timeout).toBe(120_000);
  expect(start.mcpServers.fs).toMatchObject({ timeout: 90_000, maxTotalTimeout: 7_200_000 });
  expect(start.mcpServers.slow).toMatchObject({ timeout: 300_000, maxTotalTimeout: 7_200_000 });
});
