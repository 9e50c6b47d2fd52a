/**
 * The command table loads a command's module only when that command runs or shows its help, so a one-shot
 * command does not pay for every other command's imports at start (the compiled demo's wall time).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../cli.ts";

const FIXTURE = join(import.meta.dir, "..", "__fixtures__", "loaded-commands.ts");

/** `runCli(argv)` in a fresh process: its exit code and the command modules it loaded. */
async function loadedBy(argv: string[]): Promise<{ code: number; loaded: string[] }> {
  const proc = Bun.spawn([process.execPath, FIXTURE, ...argv], { stdout: "pipe", stderr: "pipe", env: process.env });
  const [out, err, exit] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (exit !== 0) throw new Error(`fixture exited ${exit}: ${err}`);
  // The last line: a command may write to stdout itself (version does).
  return JSON.parse(out.trim().split("\n").at(-1) ?? "");
}

test("a command loads its own module and no other command's", async () => {
  expect(await loadedBy(["demo", "--help"])).toEqual({ code: 0, loaded: ["demo.ts", "index.ts"] });
  expect(await loadedBy(["version"])).toEqual({ code: 0, loaded: ["index.ts", "version.ts"] });
});

test("the list of commands in --help still names every command", async () => {
  const out: string[] = [];
  expect(await runCli(["--help"], { stdout: (s) => out.push(s), stderr: () => {} })).toBe(0);
  for (const name of ["run", "serve", "status", "approvals", "demo", "init", "mcp", "store", "conversations", "auth", "version"])
    expect(out.join("")).toContain(name);
});

test("a name every object inherits (toString, constructor) is an unknown command, not a silent exit 0", async () => {
  for (const name of ["toString", "constructor", "__proto__"]) {
    const err: string[] = [];
    expect(await runCli([name], { stdout: () => {}, stderr: (s) => err.push(s) })).toBe(2);
    expect(err.join("")).toBe(`agentd: unknown command '${name}'. Run 'agentd --help' to see the commands.\n`);
  }
});
