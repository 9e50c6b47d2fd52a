/**
 * `agentd run` against a stdio MCP server that misbehaves: the final error line names the server and says
 * what happened (exit 4), and an oversized response reaches the model at once as a tool error.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const SERVER = resolve(import.meta.dir, "../packages/sdk/src/agent/__fixtures__/misbehaving-server.ts");
let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  ws?.cleanup();
  ws = gateway = undefined;
});

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);

async function runWith(mode: string) {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: toolLike(req, "big"), arguments: {} }] }),
      (req) => ({ text: `tool said: ${req.lastToolResult}` }),
    ],
  });
  const config = ws.writeConfig({ mcpServers: { bad: { command: process.execPath, args: [SERVER, mode] } } });
  return ws.run(["run", "--config", config, "call big"], { env: modelEnv(gateway) });
}

describe("agentd run with a misbehaving stdio server", () => {
  test("a server that dies at start: exit 4, the line says it exited, with its code and last stderr lines", async () => {
    const run = await runWith("die-at-start");
    expect(run.code).toBe(4);
    expect(lastLine(run.stderr)).toBe(
      "agentd: MCP server 'bad' is unavailable: exited with code 3; last stderr: starting misbehaving server | loading settings from /nonexistent/settings.toml | fatal: settings file not found",
    );
  }, 30_000);

  test("a malformed tools/list result: exit 4, the line names the server", async () => {
    const run = await runWith("bad-tools-list");
    expect(run.code).toBe(4);
    expect(lastLine(run.stderr)).toStartWith("agentd: invalid tools/list result from MCP server 'bad': ");
  }, 30_000);

  test("a response over the frame limit reaches the model at once as an error naming the server and the limit", async () => {
    const run = await runWith("oversize");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `MCP server 'bad' sent a tools/call response over the ${4 * 1024 * 1024}-byte frame limit (maxFrameBytes)`,
    );
  }, 30_000);
});
