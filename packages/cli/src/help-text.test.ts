/**
 * `--help` fits the terminal: 80 columns in a pipe (checked through the real CLI process for every command),
 * the given width otherwise, with nothing lost on the way (every flag still listed, every example still one
 * shell command).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { startFakeGateway } from "@agentd/testkit";
import { COMMAND_PATHS, loadCommand, rootCommand, rootExamples } from "./commands/index.ts";
import { helpWidth, renderHelp, wrapWords } from "./help-text.ts";

const ws = new CliWorkspace();
afterAll(() => ws.cleanup());

const COMMANDS = ["", ...COMMAND_PATHS];
const run = (await loadCommand("run"))!;

describe("through the CLI, in a pipe", () => {
  test.each(COMMANDS)("agentd %s --help: no line over 80 columns", async (command) => {
    const run = await ws.run([...command.split(" ").filter(Boolean), "--help"]);
    expect(run.code).toBe(0);
    const long = run.stdout.split("\n").filter((l) => l.length > 80);
    expect(long).toEqual([]);
    expect(run.stdout).toContain("USAGE");
  });
});

test("every option of run is still listed, and an example broken over lines continues with a backslash", async () => {
  const text = await renderHelp(run.def, rootCommand, {
    width: 80,
    color: false,
    examples: run.examples,
    notes: run.notes,
  });
  const args = run.def.args as Record<string, { type?: string }>;
  for (const name of Object.keys(args).filter((n) => args[n]!.type !== "positional")) expect(text).toContain(`--${name}`);
  const lines = text.split("\n");
  const broken = lines.findIndex((l) => l.endsWith(" \\"));
  expect(broken).toBeGreaterThan(0);
  expect(lines[broken + 1]!.startsWith("    ")).toBe(true);
});

test("a wider terminal gets wider lines, within bounds", async () => {
  const wide = await renderHelp(run.def, rootCommand, { width: 120, color: false });
  const narrow = await renderHelp(run.def, rootCommand, { width: 60, color: false });
  expect(Math.max(...wide.split("\n").map((l) => l.length))).toBeGreaterThan(80);
  expect(Math.max(...wide.split("\n").map((l) => l.length))).toBeLessThanOrEqual(120);
  expect(Math.max(...narrow.split("\n").map((l) => l.length))).toBeLessThanOrEqual(60);
  expect(helpWidth(undefined)).toBe(80);
  expect(helpWidth(400)).toBe(120);
  expect(helpWidth(10)).toBe(40);
});

test("wrapWords keeps every word, in order", () => {
  const text = "one two three four five six seven eight nine ten";
  const lines = wrapWords(text, 12);
  expect(lines.join(" ")).toBe(text);
  expect(lines.every((l) => l.length <= 12)).toBe(true);
});

test("the top-level help's own run example works as written (its variables name a model), against a gateway", async () => {
  const example = rootExamples.find((e) => e.includes("agentd run"))!;
  const env = Object.fromEntries([...example.matchAll(/\b([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  const instruction = /"([^"]+)"/.exec(example)![1]!;
  expect(env.AGENT_INTELLIGENCE).toBeDefined();
  const gateway = await startFakeGateway({ dialect: "openai", script: [(req) => ({ text: `model ${req.model}` })] });
  try {
    // Only the endpoint's address is ours: every other variable is the example's own.
    const run = await ws.run(["run", instruction], { env: { ...env, AGENT_INTELLIGENCE: gateway.url } });
    expect(run.stderr).not.toContain("no model");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`model ${env.AGENT_MODEL}\n`);
  } finally {
    await gateway.close();
  }
});

test("a flag and the value after it stay on one line", () => {
  const lines = wrapWords("e.g. --operators local --operators 'mtls:CN=bob\\,O=ops' --operators 'mtls:CN=alice,O=ops'", 30);
  expect(lines.some((l) => l.includes("--operators 'mtls:CN=bob\\,O=ops'"))).toBe(true);
  expect(lines.some((l) => l.includes("--operators 'mtls:CN=alice,O=ops'"))).toBe(true);
});
