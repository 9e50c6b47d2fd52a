import { describe, expect, test } from "bun:test";
import { runCli } from "./cli.ts";

const capture = () => {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
};

describe("runCli", () => {
  test("--help on every command teaches by example", async () => {
    for (const argv of [["--help"], ["run", "--help"], ["demo", "--help"], ["version", "--help"]]) {
      const { out, io } = capture();
      expect(await runCli(argv, io)).toBe(0);
      expect(out.stdout).toContain("USAGE");
      expect(out.stdout).toContain("Examples:");
    }
  });
  test("no arguments prints usage and exits 2", async () => {
    const { out, io } = capture();
    expect(await runCli([], io)).toBe(2);
    expect(out.stdout).toContain("run");
  });
  test("an unknown command is one line, exit 2", async () => {
    const { out, io } = capture();
    expect(await runCli(["frobnicate"], io)).toBe(2);
    expect(out.stderr).toBe("agentd: unknown command 'frobnicate'. Run 'agentd --help' to see the commands.\n");
  });
});
