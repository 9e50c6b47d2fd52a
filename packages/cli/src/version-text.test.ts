import { expect, test } from "bun:test";
import { join } from "node:path";
import { asksOnlyForVersion, versionText } from "./version-text.ts";

const MAIN = join(import.meta.dir, "main.ts");

test("only a bare version request takes the fast path", () => {
  expect(asksOnlyForVersion(["--version"])).toEqual({ json: false });
  expect(asksOnlyForVersion(["-v"])).toEqual({ json: false });
  expect(asksOnlyForVersion(["version"])).toEqual({ json: false });
  expect(asksOnlyForVersion(["version", "--json"])).toEqual({ json: true });
  // Anything else goes through the CLI, which checks the flags and explains mistakes.
  for (const argv of [[], ["--version", "--json"], ["version", "--jsn"], ["version", "--help"], ["run", "--version"], ["-v", "x"]]) {
    expect(asksOnlyForVersion(argv)).toBeUndefined();
  }
});

test("the fast path prints the version text, and the command through the CLI prints the same", async () => {
  for (const [argv, json] of [
    [["--version"], false],
    [["-v"], false],
    [["version", "--json"], true],
  ] as const) {
    const p = Bun.spawn([process.execPath, MAIN, ...argv], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ out, err, code }).toEqual({ out: versionText(json), err: "", code: 0 });
  }
  // The command itself (reached through the CLI when the fast path does not apply) shares the text.
  const p = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { runCli } = await import(${JSON.stringify(join(import.meta.dir, "cli.ts"))}); process.exitCode = await runCli(["version", "--json"]);`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  expect({ out, code }).toEqual({ out: versionText(true), code: 0 });
  expect(versionText(false)).toMatch(/^agentd \d+\.\d+\.\d+ \(MCP 2026-07-28, /);
  expect(JSON.parse(versionText(true)).runtime).toBe(`bun ${Bun.version}`);
});
