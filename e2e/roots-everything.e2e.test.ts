/**
 * End to end: server-everything's `get-roots-list` (registered only when the client declares roots) sees
 * the roots configured in `capabilities.roots`, through the real `agentd run` process.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

test("get-roots-list reports the configured roots; without roots the tool is not offered", async () => {
  ws = new CliWorkspace();
  const data = join(ws.dir, "data");
  mkdirSync(data);
  let offered: string[] = [];
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => {
        offered = req.tools;
        const name = req.tools.find((t) => t.endsWith("get-roots-list"));
        return name ? { toolCalls: [{ name, arguments: {} }] } : { text: "NO-ROOTS-TOOL" };
      },
      (req) => ({ text: req.lastToolResult ?? "" }),
    ],
  });
  const env = { AGENT_INTELLIGENCE: gateway.url, AGENT_DIALECT: "openai", AGENT_MODEL: "m", AGENT_API_KEY: "k" };
  const config = ws.writeConfig({
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
    capabilities: { roots: [data] },
  });
  const run = await ws.run(["run", "--config", config, "List the roots"], { env });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(pathToFileURL(data).href);

  offered = [];
  gateway.push((req) => {
    offered = req.tools;
    return { text: "NO-ROOTS-TOOL" };
  });
  const bare = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
  const without = await ws.run(["run", "--config", bare, "List the roots"], { env });
  expect(without.code).toBe(0);
  expect(offered.length).toBeGreaterThan(0);
  expect(offered.some((t) => t.endsWith("get-roots-list"))).toBe(false);
  expect(without.stdout).toBe("NO-ROOTS-TOOL\n");
});
