/** The compiled binary: `bun build --compile` yields one file that runs the whole demo offline. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_MAIN, CliWorkspace, events } from "./__fixtures__/cli-harness.ts";

const dir = mkdtempSync(join(tmpdir(), "agentd-bin-"));
const binary = join(dir, "agentd");
let ws: CliWorkspace;
beforeAll(async () => {
  const build = Bun.spawn([process.execPath, "build", "--compile", "--bytecode", "--format=esm", CLI_MAIN, "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
  ws = new CliWorkspace();
}, 120_000);
afterAll(() => {
  ws?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("the binary runs the demo: bundled MCP server (itself, as a child) + scripted model", async () => {
  const run = await ws.run(["demo"], { binary });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("Order A-1042 is shipped");
  expect(run.stdout).toContain("119.51 EUR");
  expect(run.stderr).toContain("SCRIPTED model");
  const names = events(run).map((e) => e.event);
  expect(names.filter((n) => n === "tool.call").length).toBe(2);
  expect(names.at(-1)).toBe("run.end");
});

test("the binary prints its version", async () => {
  const run = await ws.run(["--version"], { binary });
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^agentd \d+\.\d+\.\d+ \(MCP 2026-07-28, 2025-11-25/);
});

test("from source, demo --json carries usage and a run id", async () => {
  const run = await ws.run(["demo", "--json"], { env: { RUN_ID: "demo-run-1" } });
  expect(run.code).toBe(0);
  const out = JSON.parse(run.stdout);
  expect(out.runId).toBe("demo-run-1");
  expect(out.turns).toBe(3);
  expect(out.toolCalls).toBe(2);
  expect(out.text).toContain("119.51 EUR");
});

test("the demo stays offline whatever agentd.json the working directory holds", async () => {
  ws.writeConfig({ model: { intelligence: "http://127.0.0.1:9/v1", name: "unreachable" }, limits: { maxTurns: 1 } });
  const run = await ws.run(["demo"], { env: { AGENT_CONFIG: "/nonexistent/agentd.json" } });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain("SCRIPTED model");
  expect(run.stdout).toContain("119.51 EUR");
});
