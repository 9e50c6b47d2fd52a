/**
 * `agentd mcp fs call …` against the real `@modelcontextprotocol/server-filesystem`, started without
 * directory arguments (as Claude Code and VS Code run it): the directories come from `capabilities.roots`,
 * which the server asks for right after initialization and applies asynchronously. A one-shot call must
 * get the file every time, not race the server's roots.
 */
import { afterEach, expect, test } from "bun:test";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";
import { modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const SERVER = join(dirname(Bun.resolveSync("@modelcontextprotocol/server-filesystem/package.json", import.meta.dir)), "dist/index.js");
// The server is a Node program (npx runs it with node); Bun runs it too when node is absent.
const RUNTIME = Bun.which("node") ?? process.execPath;

let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  ws?.cleanup();
  await gateway?.close();
  gateway = undefined;
});

test("20 of 20 one-shot reads succeed within the roots the server asked for", async () => {
  ws = new CliWorkspace();
  const data = join(ws.dir, "data");
  mkdirSync(data);
  writeFileSync(join(data, "note.txt"), "hello from the roots\n");
  const config = ws.writeConfig({ mcpServers: { fs: { command: RUNTIME, args: [SERVER] } }, capabilities: { roots: [data] } });
  const outcomes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const run = await ws.run(["mcp", "fs", "call", "read_text_file", "--arg", `path=${join(data, "note.txt")}`, "--config", config]);
    outcomes.push(run.code === 0 && run.stdout === "hello from the roots\n" ? "ok" : `exit ${run.code}: ${run.stdout}${run.stderr}`);
  }
  expect(outcomes).toEqual(Array(20).fill("ok"));
}, 240_000);

test("the wait ends on the server's own report that it applied the roots", async () => {
  ws = new CliWorkspace();
  const data = join(ws.dir, "data");
  mkdirSync(data);
  writeFileSync(join(data, "note.txt"), "x");
  const config = ws.writeConfig({ mcpServers: { fs: { command: RUNTIME, args: [SERVER] } }, capabilities: { roots: [data] } });
  const run = await ws.run(["mcp", "fs", "call", "read_text_file", "--arg", `path=${join(data, "note.txt")}`, "--config", config], {
    env: { AGENT_LOG_LEVEL: "debug" },
  });
  expect(run.code).toBe(0);
  expect(events(run).find((e) => e.event === "mcp.roots_settled")).toMatchObject({ server: "fs", settled: "applied" });
}, 60_000);

test("agentd run: a model that reads at once (no think time) gets the file, 10 of 10", async () => {
  ws = new CliWorkspace();
  const data = join(ws.dir, "data");
  mkdirSync(data);
  const file = join(data, "note.txt");
  writeFileSync(file, "from the roots\n");
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) =>
        req.lastToolResult !== undefined
          ? { text: `READ ${req.lastToolResult}` }
          : { toolCalls: [{ name: toolLike(req, "read_text_file"), arguments: { path: file } }] },
    ],
  });
  const config = ws.writeConfig({ mcpServers: { fs: { command: RUNTIME, args: [SERVER] } }, capabilities: { roots: [data] } });
  const outcomes: string[] = [];
  for (let i = 0; i < 10; i++) {
    const run = await ws.run(["run", "--config", config, "read the note"], { env: modelEnv(gateway) });
    outcomes.push(
      run.code === 0 && run.stdout.includes("from the roots") && !run.stdout.includes("Access denied")
        ? "ok"
        : `exit ${run.code}: ${run.stdout}`,
    );
  }
  expect(outcomes).toEqual(Array(10).fill("ok"));
}, 240_000);
